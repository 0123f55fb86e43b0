// The `log` transports: the outbox line has the contract's fields and the code, the log line has
// the code masked (in the code field and in the body).
import { Writable } from 'node:stream';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { LogMailTransport, LogSmsTransport, OutboxFile } from '../../src/platform/messaging/outbox-file.js';
import { freshDataDir } from './contact-helpers.js';

function capturingLogger(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

describe('log transports', () => {
  it('when an email and an SMS are sent, then two outbox lines in the contract’s shape, and logs without the code', async () => {
    const dataDir = freshDataDir();
    const { log, lines } = capturingLogger();
    const outbox = new OutboxFile(dataDir, log);
    await new LogMailTransport(outbox).send({
      to: 'ada@example.test',
      subject: 'Your code',
      body: 'Your code is 042917.',
      code: '042917',
    });
    await new LogSmsTransport(outbox).send({
      to: '+12125550123',
      body: 'Skein code: 042917',
      code: '042917',
    });

    const written = readFileSync(path.join(dataDir, 'outbox.jsonl'), 'utf8').trim().split('\n');
    expect(written.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        to: 'ada@example.test',
        kind: 'email',
        subject: 'Your code',
        body: 'Your code is 042917.',
        code: '042917',
      },
      { to: '+12125550123', kind: 'sms', subject: null, body: 'Skein code: 042917', code: '042917' },
    ]);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain('042917');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      outbox: { to: 'ada@example.test', kind: 'email', body: 'Your code is ******.', code: '******' },
    });
  });

  it('when the data directory cannot be written, then the send rejects with DeliveryFailed', async () => {
    const { log } = capturingLogger();
    // A data directory below a plain file can never be created.
    const blocker = path.join(freshDataDir(), 'a-file');
    writeFileSync(blocker, 'not a directory');
    const outbox = new OutboxFile(path.join(blocker, 'data'), log);
    await expect(
      new LogMailTransport(outbox).send({ to: 'a@example.test', subject: 's', body: 'b' }),
    ).rejects.toMatchObject({ name: 'DeliveryFailed' });
  });
});
