// A bot that lasts (issue 39): the TypeScript SDK's example echo bot runs in its own process with a
// bot's delegated session (SKEIN_TOKEN) and a cursor file, against Skein running as a separate
// process. Skein is killed with SIGKILL and started again on the same port under it: a message sent
// right after the restart (while the bot is still backing off) and one sent once it has reconnected
// are each answered once, and the one before the restart is not answered again; the bot is back within
// 2 s of Skein's readiness, however long its back-off had grown while Skein was down (issue 53). Then the bot itself
// is stopped with SIGTERM (exit code 0) and started again on the same cursor file: the message sent
// while it was down is answered once, and nothing earlier twice.
//
// Skein runs on a Neo4j of this file's own, not the test run's shared one: the service process runs
// a webhook dispatcher that claims every user's deliveries, which on the shared store would take
// other files' (as test/scale/multi-instance.int.test.ts explains).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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
    const downAt = Date.now();
    // Down long enough for the bot's back-off to grow past 2 s (0.5, 1, 2, 4 s …).
    await sleep(6000);
    service = await startService();
    // Skein answers /readyz (polled every 250 ms by startService): the bot, whose back-off grew
    // while Skein was down, polls /readyz too and is back within 2 s (issue 53).
    const readyAt = Date.now();
    const b = await send('B right after the restart');
    await waitFor(
      () => bot!.output().slice(lostAt).includes('reconnected'),
      'the bot to reconnect after the restart',
      bot,
    );
    const backAfter = Date.now() - readyAt;
    console.log(
      `Skein was down ${readyAt - downAt} ms; the bot was back ${backAfter} ms after its readiness`,
    );
    expect(backAfter).toBeLessThan(2000);
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

describe('the TypeScript example echo bot run with `npx tsx`, as the READMEs say', () => {
  it('when SIGTERM goes to the npx process alone, then the bot stops cleanly and no process of it is left', async () => {
    if (bot) {
      // The restarted bot of the test above has done its part.
      bot.child.kill('SIGTERM');
      await bot.exited;
    }
    const api = processApi(service!.url);
    const alice = await registerWriter(api);
    const created = await createManaged(api, alice.token, { is_bot: true });
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: alice.token,
      body: { managed_uid: created.uid },
    });
    const start = (await client(alice).notifications()).cursor;
    const inherited = { ...process.env };
    delete inherited.NODE_OPTIONS;
    for (const name of Object.keys(inherited)) if (name.startsWith('npm_')) delete inherited[name];
    // npm (npx) runs tsx, which runs node with the bot: three processes deep.
    const child = spawn('npx', ['tsx', 'sdks/typescript/examples/echo-bot.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...inherited, SKEIN_URL: service!.url, SKEIN_TOKEN: delegated.body.access_token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const watched: BotProcess = {
      child,
      exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
      output: () => output,
    };
    bot = watched;
    await waitFor(() => /connected to .* as uid/.test(output), 'the bot to connect', watched);
    const id = (await client(alice).post({ content: 'hello', recipients: [`uid:${created.uid}`] })).id;
    await waitForReplies(alice, start, created.uid, [id]);

    const tree = descendants(child.pid!);
    expect(tree.length).toBeGreaterThanOrEqual(2); // tsx's launcher and the bot's node, at least
    child.kill('SIGTERM'); // to npx only, as `kill <pid>` or a process manager sends it
    const deadline = Date.now() + 20_000;
    while (tree.some(alive)) {
      if (Date.now() > deadline) {
        throw new Error(`processes ${tree.filter(alive).join(', ')} outlived npx; the bot wrote:\n${output}`);
      }
      await sleep(200);
    }
    expect(output).toContain('has ended');
    expect(output).toContain('[skein-bot] stopped');
  });
});

/** Every process below `pid`, children first found, through `ps`. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' });
    for (const line of ps.stdout.split('\n')) {
      const child = Number(line.trim());
      if (child > 0) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
