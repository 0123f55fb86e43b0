// The Python SDK's example bot lasts (issue 39): skein_chat/examples/echo_bot.py runs in its own
// process (the SDK's virtualenv) with a bot's delegated session token and a cursor file, against
// Skein run as a separate process. Skein is killed with SIGKILL and started again on the same port
// under the bot: what is sent right after the restart (while the bot is still backing off) and after
// it is answered once each, and nothing before is answered again. Then the bot is stopped with
// SIGTERM (it exits 0) and started again with the same cursor file: what was sent while it was down
// is answered once when it is back.
//
// The bot reaches Skein through a TCP relay that the test can shut, as a proxy in front of a
// restarting Skein would: shut from just before the kill until 6 s after B is sent, it makes sure the
// bot is still backing off when B is sent, however fast the restart, and that its back-off has grown
// past 2 s; once the relay opens (Skein ready, as the bot sees it) the bot is back within 2 s
// (issue 53: its waits poll /readyz while Skein is away).
//
// Skein runs on a Neo4j of this file's own: a service process runs a webhook dispatcher that claims
// every pending delivery in its database, and on the run's shared Neo4j it would send (or fail) the
// deliveries of other test files' bots.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { STRONG_PASSWORD, WRITER_SCOPES, uniqueTag } from '../support/factories.js';
import { pythonSdkVenv, startPython, type PythonProcess } from '../support/python-venv.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';

// A Neo4j, two starts of the service and two of the bot on a loaded 2-core machine; the bot waits up
// to 30 s between attempts while Skein is down.
jest.setTimeout(900_000);

const ADMIN = { tag: 'lasts-admin', password: 'lasts-admin-password-3c9e' };
const root = mkdtempSync(path.join(os.tmpdir(), 'skein-py-lasts-'));
const cursorFile = path.join(root, 'echo-bot.cursor');
let neo4j: EmbeddedNeo4j | undefined;
let port: number;
let service: ServiceProcess | undefined;
let python: string;
let relay: Relay | undefined;
const bots: PythonProcess[] = [];

beforeAll(async () => {
  python = await pythonSdkVenv();
  neo4j = await startEmbeddedNeo4j({
    dataDir: path.join(root, 'neo4j'),
    port: await freePort(),
    heap: '512m',
    pageCache: '64m',
    log: createLogger('warn'),
  });
  port = await freePort();
  service = await startService();
  relay = await startRelay(port);
}, 900_000);

afterAll(async () => {
  for (const bot of bots) {
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await relay?.close();
  if (service) {
    service.kill('SIGKILL');
    await service.exited;
  }
  await neo4j?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** Skein as its own process on the fixed port, with the same data directory every time. */
function startService(): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: String(port),
    NEO4J_URI: neo4j!.target.uri,
    NEO4J_PASSWORD: neo4j!.target.password,
    SKEIN_DATA_DIR: path.join(root, 'data'),
    SKEIN_ADMIN_TAG: ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: ADMIN.password,
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    LOG_LEVEL: 'silent',
  });
}

interface Relay {
  url: string;
  /** From now on every new connection is dropped at once (those open go on). */
  shut(): void;
  open(): void;
  close(): Promise<void>;
}

async function startRelay(targetPort: number): Promise<Relay> {
  let shut = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (shut) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: relayPort } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${relayPort}`,
    shut: () => void (shut = true),
    open: () => void (shut = false),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function startBot(token: string): PythonProcess {
  const bot = startPython(python, ['-m', 'skein_chat.examples.echo_bot'], {
    cwd: root,
    env: { SKEIN_URL: relay!.url, SKEIN_TOKEN: token, SKEIN_CURSOR_FILE: cursorFile },
  });
  bots.push(bot);
  return bot;
}

async function call<T>(
  method: string,
  pathname: string,
  options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const res = await fetch(service!.url + pathname, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** A user who may write, and a bot that user manages, with the bot's delegated session. */
async function aliceAndHerBot(): Promise<{ alice: string; botUid: string; botToken: string }> {
  const tag = uniqueTag('lasts');
  const registered = await call<{ access_token: string }>('POST', '/v1/auth/register', {
    body: { user_tag: tag, password: STRONG_PASSWORD },
  });
  const me = await call<{ uid: string }>('GET', '/v1/users/me', { token: registered.access_token });
  const admin = await call<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: ADMIN.tag, password: ADMIN.password },
  });
  await call('PATCH', `/v1/admin/users/${me.uid}`, {
    token: admin.access_token,
    body: { scopes: WRITER_SCOPES },
  });
  const alice = (
    await call<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: tag, password: STRONG_PASSWORD },
    })
  ).access_token;
  const bot = await call<{ uid: string }>('POST', '/v1/managed/users', {
    token: alice,
    body: { user_tag: uniqueTag('echo'), is_bot: true },
  });
  const delegated = await call<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: alice,
    body: { managed_uid: bot.uid },
  });
  return { alice, botUid: bot.uid, botToken: delegated.access_token };
}

async function send(alice: string, botUid: string, content: string): Promise<string> {
  const [result] = await call<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
    token: alice,
    body: { content, recipients: [`uid:${botUid}`] },
  });
  expect(result?.ok).toBe(true);
  return result!.message.id;
}

/** The replies to a message that alice sees: its thread's ids, less the message itself. */
async function repliesTo(alice: string, messageId: string): Promise<string[]> {
  const tree = await call<{ ids: string[] }>('GET', `/v1/messages/${messageId}/tree-ids`, { token: alice });
  return tree.ids.filter((id) => id !== messageId);
}

async function until(condition: () => boolean | Promise<boolean>, what: string, why: () => string) {
  const deadline = Date.now() + 240_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${why()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** How many times the bot processes (all of them) logged handling the message. */
function handledCount(messageId: string): number {
  const line = new RegExp(`handling sent message ${messageId} from`, 'g');
  return bots.reduce((sum, bot) => sum + (bot.output().match(line) ?? []).length, 0);
}

function outputs(): string {
  return bots.map((bot, i) => `--- bot process ${i + 1}:\n${bot.output()}`).join('\n');
}

describe('Python SDK: the example echo bot in its own process', () => {
  it('when Skein is killed and restarted under it, and then the bot itself restarts, then every message is answered once', async () => {
    const { alice, botUid, botToken } = await aliceAndHerBot();
    const answered = async (id: string) => (await repliesTo(alice, id)).length > 0;

    let bot = startBot(botToken);
    // A first start writes the cursor it begins at: from then on nothing sent to the bot is missed.
    await until(() => existsSync(cursorFile), 'the bot to connect', outputs);
    const a = await send(alice, botUid, 'message A');
    await until(() => answered(a), 'the answer to A', outputs);

    relay!.shut();
    service!.kill('SIGKILL');
    await service!.exited;
    const lostAt = bot.output().length;
    service = await startService();
    // The bot lost its socket with the kill and cannot connect yet: it is backing off.
    const b = await send(alice, botUid, 'message B');
    // Hold Skein away long enough for the back-off to grow past 2 s (0.5, 1, 2, 4 s …).
    await new Promise((resolve) => setTimeout(resolve, 6000));
    relay!.open();
    // Skein is ready from the bot's side now: the bot, polling /readyz, is back within 2 s.
    const readyAt = Date.now();
    while (!bot.output().slice(lostAt).includes('connected to')) {
      if (Date.now() - readyAt > 240_000) throw new Error(`the bot did not reconnect\n${outputs()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Date.now() - readyAt).toBeLessThan(2000);
    await until(() => answered(b), 'the answer to B, sent right after the restart', outputs);
    const c = await send(alice, botUid, 'message C');
    await until(() => answered(c), 'the answer to C', outputs);

    bot.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
    const d = await send(alice, botUid, 'message D');
    bot = startBot(botToken);
    await until(() => answered(d), 'the answer to D, sent while the bot was down', outputs);
    // One more, live: events are handed out in order, so by E's answer a repeat of A to D would have
    // been handled (and logged) already.
    const e = await send(alice, botUid, 'message E');
    await until(() => answered(e), 'the answer to E', outputs);

    const contents = ['A', 'B', 'C', 'D', 'E'];
    for (const [i, id] of [a, b, c, d, e].entries()) {
      const replies = await repliesTo(alice, id);
      expect({ message: contents[i], replies: replies.length, handled: handledCount(id) }).toEqual({
        message: contents[i],
        replies: 1,
        handled: 1,
      });
      const reply = await call<{ content: string; author: { uid: string } }>(
        'GET',
        `/v1/messages/${replies[0]}`,
        { token: alice },
      );
      expect(reply).toMatchObject({ content: `echo: message ${contents[i]}`, author: { uid: botUid } });
    }
    expect(JSON.parse(readFileSync(cursorFile, 'utf8'))).toEqual({ cursor: expect.any(String) });

    bot.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
  });
});
