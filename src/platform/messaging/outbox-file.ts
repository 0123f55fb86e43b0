// The `log` transports: every outgoing email or SMS becomes one JSON line
// {"to", "kind", "subject", "body", "code"} in $SKEIN_DATA_DIR/outbox.jsonl (the contract's format;
// development and tests read codes from it), and one log line. The log line has the code masked:
// logs travel further than the data directory (aggregators, support tickets), and a reset code
// there would be a way into the account.
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';
import {
  DeliveryFailed,
  maskCode,
  type MailMessage,
  type MailTransport,
  type SmsMessage,
  type SmsTransport,
} from './transports.js';

export interface OutboxLine {
  to: string;
  kind: 'email' | 'sms';
  subject: string | null;
  body: string;
  code: string | null;
}

export const OUTBOX_FILE = 'outbox.jsonl';

export class OutboxFile {
  readonly path: string;

  constructor(
    dataDir: string,
    private readonly log: Logger,
  ) {
    this.path = path.join(dataDir, OUTBOX_FILE);
  }

  async append(line: OutboxLine): Promise<void> {
    try {
      await mkdir(path.dirname(this.path), { recursive: true });
      // One appendFile per line: a short O_APPEND write lands whole, so concurrent sends never interleave.
      await appendFile(this.path, `${JSON.stringify(line)}\n`, { encoding: 'utf8', mode: 0o600 });
    } catch (error) {
      throw new DeliveryFailed(`The outbox file could not be written: ${(error as Error).message}`);
    }
    const shown = maskCode({ ...line, code: line.code ?? undefined });
    this.log.info(
      {
        outbox: {
          to: shown.to,
          kind: line.kind,
          subject: line.subject,
          body: shown.body,
          code: shown.code ?? null,
        },
      },
      `outgoing ${line.kind} written to ${this.path}`,
    );
  }
}

export class LogMailTransport implements MailTransport {
  constructor(private readonly outbox: OutboxFile) {}

  send(message: MailMessage): Promise<void> {
    return this.outbox.append({
      to: message.to,
      kind: 'email',
      subject: message.subject,
      body: message.body,
      code: message.code ?? null,
    });
  }
}

export class LogSmsTransport implements SmsTransport {
  constructor(private readonly outbox: OutboxFile) {}

  send(message: SmsMessage): Promise<void> {
    return this.outbox.append({
      to: message.to,
      kind: 'sms',
      subject: null,
      body: message.body,
      code: message.code ?? null,
    });
  }
}
