// Crash recovery (short form for CI): the whole service runs as its own process with its own
// embedded Neo4j, under a steady load of three-message posts; it is killed with SIGKILL (and, in the
// second case, its Neo4j is), then started again on the same data directory. Every post that was
// answered 200 must be there exactly once, with its recipient edges, and no post may be half-written
// (a chain of three is all there or not at all). Its events survive too: resuming the recipient's
// notifications with a cursor taken before the crash hands out exactly one `sent` event per post
// that is there (committed events the crash left unnumbered are numbered at start-up), and nothing
// else.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { STRONG_PASSWORD, WRITER_SCOPES, uniqueTag } from '../support/factories.js';
import {
  childPids,
  sleep,
  startServiceProcess,
  waitForPortClosed,
  type ServiceProcess,
} from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';

// Three starts of a service with its own Neo4j on a loaded 2-core machine.
jest.setTimeout(900_000);

const ADMIN = { tag: 'crash-admin', password: 'crash-admin-password-5e1d' };
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skein-crash-'));
let neo4jPort: number;
let httpPort: number;
let service: ServiceProcess | undefined;

interface Account {
  uid: string;
  tag: string;
  token: string;
}

interface Post {
  run: string;
  contents: string[];
  /** Set when the service answered 200 with every item created. */
  ids?: string[];
}

beforeAll(async () => {
  neo4jPort = await freePort();
  httpPort = await freePort();
});

afterAll(async () => {
  if (service) {
    service.kill('SIGKILL');
    await service.exited;
  }
  await waitForPortClosed(neo4jPort).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

function start(): Promise<ServiceProcess> {
  return startServiceProcess({
    PORT: String(httpPort),
    SKEIN_DATA_DIR: dataDir,
    SKEIN_NEO4J_PORT: String(neo4jPort),
    SKEIN_NEO4J_HEAP: '512m',
    SKEIN_ADMIN_TAG: ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: ADMIN.password,
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    LOG_LEVEL: 'silent',
  });
}

async function call<T>(
  method: string,
  pathname: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(service!.url + pathname, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

async function account(scopes: string[]): Promise<Account> {
  const tag = uniqueTag('crash');
  const registered = await call<{ access_token: string }>('POST', '/v1/auth/register', {
    body: { user_tag: tag, password: STRONG_PASSWORD },
  });
  expect(registered.status).toBe(200);
  const me = await call<{ uid: string }>('GET', '/v1/users/me', { token: registered.body.access_token });
  const admin = await call<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: ADMIN.tag, password: ADMIN.password },
  });
  expect(
    (
      await call('PATCH', `/v1/admin/users/${me.body.uid}`, {
        token: admin.body.access_token,
        body: { scopes },
      })
    ).status,
  ).toBe(200);
  return login(tag, me.body.uid);
}

async function login(tag: string, uid: string): Promise<Account> {
  const res = await call<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: tag, password: STRONG_PASSWORD },
  });
  expect(res.status).toBe(200);
  return { uid, tag, token: res.body.access_token };
}

/**
 * Posts three-message chains from `workers` loops until `stop` resolves; answers every attempt, with
 * ids for those the service acknowledged, and every status.
 */
async function writeUntil(
  writer: Account,
  reader: Account,
  run: string,
  posts: Post[],
  stop: Promise<void>,
  workers = 4,
): Promise<{ statuses: number[] }> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const statuses: number[] = [];
  const loop = async (worker: number) => {
    for (let i = 0; !stopped; i++) {
      const contents = ['a', 'b', 'c'].map((part) => `${run} w${worker} n${i} ${part}`);
      const post: Post = { run, contents };
      posts.push(post);
      try {
        const res = await call<{ ok: boolean; message?: { id: string } }[]>('POST', '/v1/messages', {
          token: writer.token,
          body: { messages: contents.map((content) => ({ content, recipients: [reader.tag] })) },
        });
        statuses.push(res.status);
        if (res.status === 200 && res.body.every((item) => item.ok))
          post.ids = res.body.map((r) => r.message!.id);
      } catch {
        // The connection died with the process: this post is unacknowledged.
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, worker) => loop(worker)));
  return { statuses };
}

/** Resolves once `count` posts have been acknowledged (so the crash lands mid-load, not before it). */
async function acknowledged(posts: () => Post[], count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (posts().filter((p) => p.ids).length < count) {
    if (Date.now() > deadline) throw new Error('the load never got going');
    await sleep(100);
  }
}

/** Every root message the writer has, by content, through the history view (thread roots). */
async function rootsByContent(writer: Account): Promise<Map<string, string[]>> {
  const roots = new Map<string, string[]>();
  for (let skip = 0; ; skip += 100) {
    const page = await call<{ messages: { id: string; content: string }[]; has_more: boolean }>(
      'GET',
      `/v1/messages/history?skip=${skip}&limit=100`,
      { token: writer.token },
    );
    expect(page.status).toBe(200);
    for (const m of page.body.messages) roots.set(m.content, [...(roots.get(m.content) ?? []), m.id]);
    if (!page.body.has_more) return roots;
  }
}

interface Notification {
  id: string;
  cursor: string;
  event: { type: string; content: { messages: { id: string; content: string }[] } };
}

/** Where the user's notifications stand now: GET /v1/notifications answers the cursor to resume from. */
async function cursorNow(user: Account): Promise<string> {
  const res = await call<{ cursor: string; has_more: boolean }>('GET', '/v1/notifications?limit=1', {
    token: user.token,
  });
  expect(res.status).toBe(200);
  // With no since, the page starts at the beginning: follow it to the end.
  let cursor = res.body.cursor;
  for (let more = res.body.has_more; more;) {
    const next = await call<{ cursor: string; has_more: boolean }>(
      'GET',
      `/v1/notifications?since=${encodeURIComponent(cursor)}&limit=100`,
      { token: user.token },
    );
    expect(next.status).toBe(200);
    cursor = next.body.cursor;
    more = next.body.has_more;
  }
  return cursor;
}

/** Every notification of the user after the cursor, paging with the cursors the service answers. */
async function notificationsSince(user: Account, since: string): Promise<Notification[]> {
  const all: Notification[] = [];
  for (let cursor = since; ;) {
    const page = await call<{ notifications: Notification[]; cursor: string; has_more: boolean }>(
      'GET',
      `/v1/notifications?since=${encodeURIComponent(cursor)}&limit=100`,
      { token: user.token },
    );
    expect(page.status).toBe(200);
    all.push(...page.body.notifications);
    cursor = page.body.cursor;
    if (!page.body.has_more) return all;
  }
}

async function expectIntact(writer: Account, reader: Account, posts: Post[], since: string): Promise<void> {
  const roots = await rootsByContent(writer);
  /** The ids of each post that is there, as sets of three. */
  const stored: string[][] = [];
  let acknowledged = 0;
  for (const post of posts) {
    const found = roots.get(post.contents[0]!) ?? [];
    // Never twice; an acknowledged post always.
    expect(found.length).toBeLessThanOrEqual(1);
    if (post.ids) {
      acknowledged++;
      expect(found).toEqual([post.ids[0]]);
    }
    if (found.length === 1) {
      // All three or nothing: the chain's tree has exactly its three messages, each one visible to
      // the recipient (the receiver edges were written with it).
      const tree = await call<{ ids: string[] }>('GET', `/v1/messages/${found[0]}/tree-ids`, {
        token: writer.token,
      });
      expect(tree.status).toBe(200);
      expect(tree.body.ids).toHaveLength(3);
      stored.push(tree.body.ids);
      for (const id of tree.body.ids) {
        const read = await call<{ content: string }>('GET', `/v1/messages/${id}`, { token: reader.token });
        expect(read.status).toBe(200);
        expect(post.contents).toContain(read.body.content);
      }
    }
  }
  expect(acknowledged).toBeGreaterThan(0);

  // The reader's events since the cursor: one `sent` per stored post, naming its three messages,
  // each event once; nothing about a post that is not there.
  const told = await notificationsSince(reader, since);
  expect(new Set(told.map((n) => n.id)).size).toBe(told.length);
  expect(new Set(told.map((n) => n.cursor)).size).toBe(told.length);
  expect(told.every((n) => n.event.type === 'sent')).toBe(true);
  const byPost = told.map((n) =>
    n.event.content.messages
      .map((m) => m.id)
      .sort()
      .join(','),
  );
  expect(byPost.sort()).toEqual(stored.map((ids) => [...ids].sort().join(',')).sort());
}

describe('crash recovery', () => {
  let writer: Account;
  let reader: Account;

  it('when the service is killed with SIGKILL under write load, then every acknowledged post is there once and none is half-written', async () => {
    service = await start();
    writer = await account(WRITER_SCOPES);
    reader = await account(WRITER_SCOPES);
    const since = await cursorNow(reader);

    const posts: Post[] = [];
    const killed = (async () => {
      await acknowledged(() => posts, 10);
      service.kill('SIGKILL');
      await service.exited;
    })();
    await writeUntil(writer, reader, 'svc-kill', posts, killed);
    await killed;
    // The embedded Neo4j notices its parent is gone and shuts down, releasing the store.
    await waitForPortClosed(neo4jPort);

    service = await start();
    ({ token: writer.token } = await login(writer.tag, writer.uid));
    ({ token: reader.token } = await login(reader.tag, reader.uid));
    await expectIntact(writer, reader, posts, since);
  });

  it('when the embedded Neo4j is killed with SIGKILL, then requests fail with 503 (never 500), the service exits, and a restart recovers every acknowledged post', async () => {
    const [java] = childPids(service!.pid, 'java');
    expect(java).toBeDefined();
    const since = await cursorNow(reader);

    const posts: Post[] = [];
    const killed = (async () => {
      await acknowledged(() => posts, 10);
      process.kill(java!, 'SIGKILL');
      // The service gives up on a dead database rather than limping on: a supervisor restarts it.
      expect(await service!.exited).toBe(1);
    })();
    const { statuses } = await writeUntil(writer, reader, 'neo4j-kill', posts, killed);
    await killed;
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);

    service = await start();
    ({ token: writer.token } = await login(writer.tag, writer.uid));
    ({ token: reader.token } = await login(reader.tag, reader.uid));
    await expectIntact(writer, reader, posts, since);
  });
});
