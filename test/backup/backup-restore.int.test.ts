// Backup and restore through real processes: a service with its own embedded Neo4j is seeded through
// the API, backed up with `npm run admin -- backup` while another user keeps posting, stopped, and
// restored with `npm run admin -- restore` into an empty data folder; a service started on that folder
// must answer every seeded read as before, sign everyone in with the same password and key, resume
// a socket from a cursor taken before the backup with exactly the events it missed, and deliver
// webhooks signed with the same secret. Every post the load had answered before the backup began is
// there, whole.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { postMessage, registerWriter, uniqueTag } from '../support/factories.js';
import { processApi } from '../support/process-api.js';
import { waitForPortClosed, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { openSocket, type Frame } from '../support/ws-client.js';
import { botWithEndpoint, messageTo } from '../webhooks/webhook-helpers.js';
import { runAdmin, serviceEnv, startService, stopService } from './backup-support.js';
import { readAll, seedStore } from './store-seed.js';

// Two starts of a service with its own Neo4j, and a restore that starts one, on a loaded 2-core machine.
jest.setTimeout(900_000);

const work = mkdtempSync(path.join(os.tmpdir(), 'skein-backup-'));
const sourceDir = path.join(work, 'source');
const targetDir = path.join(work, 'restored');
const archive = path.join(work, 'skein.backup');
let httpPort: number;
let neo4jPort: number;
let service: ServiceProcess | undefined;
let receiver: WebhookReceiver;

beforeAll(async () => {
  httpPort = await freePort();
  neo4jPort = await freePort();
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await stopService(service);
  await receiver.close();
  await waitForPortClosed(neo4jPort).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

interface Notification extends Frame {
  event: { type: string; content: { messages: { id: string }[] } };
}

describe('npm run admin -- backup, then restore', () => {
  it('when a backup taken while posts keep coming is restored into an empty folder, then everything answers as before', async () => {
    service = await startService(serviceEnv(sourceDir, httpPort, neo4jPort));
    const api = processApi(service.url);
    const word = uniqueTag('w');
    const store = await seedStore(api, word);
    const bot = await botWithEndpoint(api, store.alice, receiver);
    const secret = receiver.secret;
    const first = await messageTo(api, store.alice, bot, 'before the backup');
    await receiver.waitFor(
      (got) => got.some((hook) => hook.body.includes(first.id)),
      60_000,
      'the first delivery',
    );
    const before = await readAll(api, store);

    // Another user posts to themselves all through the backup.
    const dave = await registerWriter(api);
    const answered: string[] = [];
    let loading = true;
    const load = (async () => {
      while (loading)
        answered.push((await postMessage(api, dave.token, { content: 'load', recipients: [dave.tag] })).id);
    })();
    while (answered.length < 5) await new Promise((resolve) => setTimeout(resolve, 50));
    const answeredBefore = [...answered];
    const backup = await runAdmin(['backup', archive], serviceEnv(sourceDir, httpPort, neo4jPort));
    loading = false;
    await load;
    expect({ code: backup.code, stderr: backup.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(backup.stdout).toMatch(/^Wrote .* in [\d.]+ s \(schema version \d+\)/);
    expect(backup.stderr).toContain('backup: reading nodes');
    await stopService(service);
    service = undefined;
    await waitForPortClosed(neo4jPort);

    const restore = await runAdmin(['restore', archive], serviceEnv(targetDir, httpPort, neo4jPort));
    expect({ code: restore.code, out: restore.stdout }).toEqual({
      code: 0,
      out: expect.stringMatching(/^Restored /),
    });
    await waitForPortClosed(neo4jPort);
    service = await startService(serviceEnv(targetDir, httpPort, neo4jPort));
    const restored = processApi(service.url);

    // The same passwords and key.
    for (const user of [store.alice, store.bob]) {
      const login = await restored.request('POST', '/v1/auth/password/login', {
        body: { user_tag: user.tag, password: user.password },
      });
      expect({ tag: user.tag, status: login.status }).toEqual({ tag: user.tag, status: 200 });
    }
    const me = await restored.request<{ uid: string }>('GET', '/v1/users/me', { apiKey: store.key });
    expect(me.body.uid).toBe(store.alice.uid);

    // Every read answers as before (sessions come back too: the same tokens read).
    expect(await readAll(restored, store)).toEqual(before);

    // A socket resuming from the cursor taken before the backup gets exactly the two messages after it.
    const socket = await openSocket(restored, { token: store.bob.token, query: { since: store.cursor } });
    const frames: Frame[] = [];
    while (frames.filter((frame) => frame.type === 'notification').length < 2)
      frames.push(await socket.next());
    const resumed = frames
      .filter((frame): frame is Notification => frame.type === 'notification')
      .map((frame) => frame.event.content.messages.map((message) => message.id));
    expect(resumed).toEqual(store.afterCursor.map((id) => [id]));
    await expect(socket.next(2_000)).rejects.toThrow(/no frame/);
    socket.ws.close();

    // Webhooks resume, signed with the same secret.
    const after = await messageTo(restored, store.alice, bot, 'after the restore');
    const delivered = await receiver.waitFor(
      (got) => got.some((hook) => hook.body.includes(after.id)),
      60_000,
      'the delivery after the restore',
    );
    expect(receiver.secret).toBe(secret);
    expect(delivered.find((hook) => hook.body.includes(after.id))?.verified).toBe(true);

    // The load: every post answered before the backup began is there and reads whole.
    const daveLogin = await restored.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: dave.tag, password: dave.password },
    });
    for (const id of answeredBefore) {
      const read = await restored.request<{ id: string; recipients: { uid: string }[] }>(
        'GET',
        `/v1/messages/${id}`,
        {
          token: daveLogin.body.access_token,
        },
      );
      expect({ id, status: read.status, recipients: read.body.recipients?.map((r) => r.uid) }).toEqual({
        id,
        status: 200,
        recipients: [dave.uid],
      });
    }
  });
});
