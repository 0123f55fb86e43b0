// A bot that lasts (issue 39): the TypeScript SDK's example echo bot runs in its own process with a
// bot's delegated session (SKEIN_TOKEN) and a cursor file, against Skein running as a separate
// process. Skein is killed with SIGKILL and started again on the same port under it: a message sent
// right after the restart (while the bot is still backing off) and one sent once it has reconnected
// are each answered once, and the one before the restart is not answered again. Then the bot itself
// is stopped with SIGTERM (exit code 0) and started again on the same cursor file: the message sent
// while it was down is answered once, and nothing earlier twice.
//
// Skein runs on a Neo4j of this file's own, not the test run's shared one: the service process runs
// a webhook dispatcher that claims every user's deliveries, which on the shared store would take
// other files' (as test/scale/multi-instance.int.test.ts explains).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { SkeinClient } from '../../sdks/typescript/src/index.js';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { createManaged, registerWriter, type TestUser } from '../support/factories.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';
import { TEST_ADMIN } from '../support/test-server.js';
import { processApi } from '../support/process-api.js';

// A Neo4j start, two service starts and a bot that backs off up to 30 s, on a loaded 2-core machine.
jest.setTimeout(900_000);

const root = mkdtempSync(path.join(os.tmpdir(), 'skein-bot-lasts-'));
const cursorFile = path.join(root, 'echo-bot.cursor');
let neo4j: EmbeddedNeo4j | undefined;
let port: number;
let service: ServiceProcess | undefined;
let bot: BotProcess | undefined;

beforeAll(async () => {
  neo4j = await startEmbeddedNeo4j({
    dataDir: path.join(root, 'neo4j'),
    port: await freePort(),
    heap: '512m',
    pageCache: '64m',
    log: createLogger('warn'),
  });
  port = await freePort();
  service = await startService();
});

afterAll(async () => {
  if (bot) {
    bot.child.kill('SIGKILL');
    await bot.exited;
  }
  if (service) {
    service.kill('SIGKILL');
    await service.exited;
  }
  await neo4j?.stop();
  rmSync(root, { recursive: true, force: true });
});

function startService(): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: String(port),
    NEO4J_URI: neo4j!.target.uri,
    NEO4J_PASSWORD: neo4j!.target.password,
    SKEIN_DATA_DIR: path.join(root, 'skein'),
    SKEIN_ADMIN_TAG: TEST_ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: TEST_ADMIN.password,
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    LOG_LEVEL: 'silent',
  });
}

interface BotProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** Runs sdks/typescript/examples/echo-bot.ts as a user would, with tsx, in a process of its own. */
function startBot(token: string): BotProcess {
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS; // jest's --experimental-vm-modules is not the bot's business
  const child = spawn(process.execPath, ['--import', 'tsx', 'sdks/typescript/examples/echo-bot.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, SKEIN_URL: service!.url, SKEIN_TOKEN: token, SKEIN_CURSOR_FILE: cursorFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the TypeScript example echo bot, in its own process, across restarts', () => {
  it('when Skein is killed and restarted under it, and then the bot itself is restarted, then every message is answered exactly once', async () => {
    const api = processApi(service!.url);
    const alice = await registerWriter(api);
    const created = await createManaged(api, alice.token, { is_bot: true });
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: alice.token,
      body: { managed_uid: created.uid },
    });
    expect(delegated.status).toBe(200);
    const botToken = delegated.body.access_token;
    const start = (await client(alice).notifications()).cursor;
    const send = async (content: string) =>
      (await client(alice).post({ content, recipients: [`uid:${created.uid}`] })).id;

    bot = startBot(botToken);
    await waitFor(() => /connected to .* as uid/.test(bot!.output()), 'the bot to connect', bot);
    const a = await send('A before the restart');
    await waitForReplies(alice, start, created.uid, [a]);

    // Skein dies without a goodbye and comes back on the same port and data.
    service!.kill('SIGKILL');
    await service!.exited;
    const lostAt = bot.output().length;
    service = await startService();
    const b = await send('B right after the restart');
    await waitFor(
      () => bot!.output().slice(lostAt).includes('reconnected'),
      'the bot to reconnect after the restart',
      bot,
    );
    const c = await send('C after the bot reconnected');
    await waitForReplies(alice, start, created.uid, [a, b, c]);

    // The bot stops cleanly on SIGTERM, misses D while down, and resumes from its cursor file.
    bot.child.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    expect(readFileSync(cursorFile, 'utf8').trim()).not.toBe('');
    const d = await send('D while the bot was down');
    bot = startBot(botToken);
    await waitFor(() => /connected to .* as uid/.test(bot!.output()), 'the restarted bot to connect', bot);
    const e = await send('E after the bot restarted');
    await waitForReplies(alice, start, created.uid, [a, b, c, d, e]);

    await sleep(1000); // a repeated answer would arrive now
    // Exactly one answer each (handlers run concurrently, so their order may differ).
    const replies = await repliesBy(alice, start, created.uid);
    expect(replies.map((r) => r.parent).sort()).toEqual([a, b, c, d, e].sort());
    expect(replies.every((r) => r.content.startsWith('echo: '))).toBe(true);
  });
});

const client = (user: TestUser) => new SkeinClient({ baseUrl: service!.url, token: user.token });

/** The bot's replies that reached `user` after `since`, in order: each one's parent and content. */
async function repliesBy(
  user: TestUser,
  since: string,
  botUid: string,
): Promise<{ parent: string | null; content: string }[]> {
  const replies: { parent: string | null; content: string }[] = [];
  let cursor = since;
  for (;;) {
    const page = await client(user).notifications({ since: cursor, limit: 100 });
    for (const { event } of page.notifications) {
      if (event.type !== 'sent') continue;
      for (const message of event.content.messages) {
        if (message.author.uid === botUid)
          replies.push({ parent: message.parent_id, content: message.content });
      }
    }
    cursor = page.cursor;
    if (!page.has_more) return replies;
  }
}

/** Waits until the bot has answered every message of `parents` (at least once). */
async function waitForReplies(
  user: TestUser,
  since: string,
  botUid: string,
  parents: string[],
): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const answered = new Set((await repliesBy(user, since, botUid)).map((r) => r.parent));
    if (parents.every((id) => answered.has(id))) return;
    if (Date.now() > deadline) {
      throw new Error(
        `the bot did not answer ${parents.filter((id) => !answered.has(id)).join(', ')}:\n${bot?.output()}`,
      );
    }
    await sleep(250);
  }
}

async function waitFor(predicate: () => boolean, what: string, watched: BotProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (!predicate()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; the bot wrote:\n${watched.output()}`);
    await sleep(100);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
