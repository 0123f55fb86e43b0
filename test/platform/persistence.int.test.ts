// The whole service with its own embedded Neo4j: data written before a stop is there after a
// start on the same data directory, and schema set-up is idempotent.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { loadConfig } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { Database } from '../../src/platform/neo4j/database.js';
import { applySchema } from '../../src/platform/neo4j/schema-setup.js';
import { runService, type RunningService } from '../../src/service.js';
import { STRONG_PASSWORD, uniqueTag } from '../support/factories.js';
import { freePort } from '../support/test-neo4j.js';

// Neo4j starts twice in this file. The limit leaves room for a first start, a stop and the
// launcher's own 180 s start limit, so that a failed second start reports its cause.
jest.setTimeout(360_000);

const log = createLogger('silent');
const ADMIN_TAG = uniqueTag('persistadmin');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skein-persistence-'));
let running: RunningService | undefined;

afterAll(async () => {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number): Promise<RunningService> {
  const config = loadConfig({
    SKEIN_DATA_DIR: dataDir,
    SKEIN_NEO4J_PORT: String(port),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    SKEIN_NEO4J_HEAP: '512m',
    SKEIN_ADMIN_TAG: ADMIN_TAG,
    SKEIN_ADMIN_PASSWORD: STRONG_PASSWORD,
  });
  return runService(config, log);
}

async function post<T>(url: string, body: unknown, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function getJson<T>(url: string, token: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as T };
}

/** The fields of a /proc stat line after the command name (which may hold spaces): [state, ppid, …]. */
function statFields(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** Niceness is stat's 19th field, the 17th after the command name. */
const niceOf = (file: string) => Number(statFields(file)[16]);

/**
 * The embedded JVM this file's service started: a child of this process whose environment names
 * its store (the run's shared test Neo4j may be a child of this process too).
 */
function serviceJvm(): number | undefined {
  const home = `SKEIN_NEO4J_HOME=${path.join(dataDir, 'neo4j')}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .find((pid) => {
      try {
        return (
          Number(statFields(`/proc/${pid}/stat`)[1]) === process.pid &&
          readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(home)
        );
      } catch {
        return false; // ended while the list was read
      }
    });
}

async function schemaVersion(db: Database): Promise<unknown> {
  const rows = await db.runText('MATCH (s:SkeinSchema {id: "schema"}) RETURN s.version AS version');
  expect(rows).toHaveLength(1);
  return rows[0]?.version;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('restart of the service with its embedded Neo4j', () => {
  it('when a user registers and the service restarts on the same data dir, then the user signs in with the same uid (and the embedded JVM ran at niceness 10 on every thread)', async () => {
    const boltPort = await freePort();
    const tag = uniqueTag('persist');

    running = await start(boltPort);
    const first = running;
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    // Below the service's CPU priority (embedded-neo4j.ts, EMBEDDED_NICE), the threads it started
    // too; nice(1) adds to the niceness it was started with (this process's, under `nice npm test`).
    const jvm = serviceJvm();
    expect(jvm).toBeDefined();
    const niceness = readdirSync(`/proc/${jvm}/task`).map((tid) => niceOf(`/proc/${jvm}/task/${tid}/stat`));
    expect(niceness.length).toBeGreaterThan(10);
    expect(new Set(niceness)).toEqual(new Set([Math.min(19, os.getPriority() + 10)]));
    const registered = await post<{ access_token: string }>(`${first.url}/v1/auth/register`, {
      user_tag: tag,
      password: STRONG_PASSWORD,
    });
    expect(registered.status).toBe(200);
    const before = await getJson<{ uid: string; user_tag: string }>(
      `${first.url}/v1/users/me`,
      registered.body.access_token,
    );
    expect(before.status).toBe(200);
    const versionBefore = await schemaVersion(first.ctx.db);
    expect(versionBefore).toEqual(expect.any(Number));

    await first.stop();
    running = undefined;
    // Stopping the service stops its Neo4j: nothing listens on the Bolt port any more.
    expect(await listening(boltPort)).toBe(false);

    running = await start(boltPort);
    const second = running;
    const login = await post<{ access_token: string }>(`${second.url}/v1/auth/password/login`, {
      user_tag: tag,
      password: STRONG_PASSWORD,
    });
    expect(login.status).toBe(200);
    const after = await getJson<{ uid: string; user_tag: string }>(
      `${second.url}/v1/users/me`,
      login.body.access_token,
    );
    expect(after.status).toBe(200);
    expect(after.body.uid).toBe(before.body.uid);
    expect(after.body.user_tag).toBe(tag);

    // The session issued before the restart is still valid: sessions live in Neo4j too.
    const old = await getJson<{ uid: string }>(`${second.url}/v1/users/me`, registered.body.access_token);
    expect(old.status).toBe(200);
    expect(old.body.uid).toBe(before.body.uid);

    expect(await schemaVersion(second.ctx.db)).toBe(versionBefore);
  });
});

describe('schema version 20 on a store written before it', () => {
  it('when it is applied to messages that have no participation records, then it builds them from the messages', async () => {
    running ??= await start(await freePort());
    const db = running.ctx.db;
    // Messages as version 19 wrote them: no participation records.
    await db.runText(
      `CREATE (:Message {id: 'pre20-root', author_uid: 'pre20-a', root_id: 'pre20-root',
                         created_at: datetime('2026-01-01T10:00:00Z')})
       CREATE (:Message {id: 'pre20-reply', author_uid: 'pre20-a', root_id: 'pre20-root',
                         created_at: datetime('2026-01-02T10:00:00Z')})
       CREATE (:Message {id: 'pre20-other', author_uid: 'pre20-b', root_id: 'pre20-root',
                         created_at: datetime('2026-01-03T10:00:00Z')})
                -[:RECEIVED_BY]->(:User {uid: 'pre20-c'})`,
    );
    await db.runText(`MATCH (p:Participation) WHERE p.uid STARTS WITH 'pre20-' DELETE p`);
    await db.runText(`MATCH (s:SkeinSchema {id: "schema"}) SET s.applied = [v IN s.applied WHERE v <> 20]`);

    await applySchema(db, log);
    const records = await db.runText(
      `MATCH (p:Participation) WHERE p.uid STARTS WITH 'pre20-'
       RETURN p.uid AS uid, p.root_id AS root_id, toString(p.last_wrote_at) AS last_wrote_at, p.addressed AS addressed
       ORDER BY uid`,
    );
    expect(records).toEqual([
      { uid: 'pre20-a', root_id: 'pre20-root', last_wrote_at: '2026-01-02T10:00:00Z', addressed: false },
      { uid: 'pre20-b', root_id: 'pre20-root', last_wrote_at: '2026-01-03T10:00:00Z', addressed: true },
    ]);
  });
});

describe('schema version 21 on a store written before it', () => {
  it('when it is applied to receivers edges without their recipient and time, then it writes them and the timeline lists those messages in order', async () => {
    running ??= await start(await freePort());
    const { url, ctx } = running;
    const authorTag = uniqueTag('pre21a');
    const registered = await post<{ access_token: string }>(`${url}/v1/auth/register`, {
      user_tag: authorTag,
      password: STRONG_PASSWORD,
    });
    const reader = await post<{ access_token: string }>(`${url}/v1/auth/register`, {
      user_tag: uniqueTag('pre21r'),
      password: STRONG_PASSWORD,
    });
    const readerUid = (await getJson<{ uid: string }>(`${url}/v1/users/me`, reader.body.access_token)).body
      .uid;
    const authorUid = (await getJson<{ uid: string }>(`${url}/v1/users/me`, registered.body.access_token))
      .body.uid;
    const admin = await post<{ access_token: string }>(`${url}/v1/auth/password/login`, {
      user_tag: ADMIN_TAG,
      password: STRONG_PASSWORD,
    });
    const granted = await fetch(`${url}/v1/admin/users/${authorUid}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.body.access_token}` },
      body: JSON.stringify({ scopes: ['messages.read', 'messages.write'] }),
    });
    expect(granted.status).toBe(200);
    // A session carries the scopes it was issued with: the grant takes effect at the next sign-in.
    const author = await post<{ access_token: string }>(`${url}/v1/auth/password/login`, {
      user_tag: authorTag,
      password: STRONG_PASSWORD,
    });
    const posted: string[] = [];
    for (const content of ['first', 'second', 'third']) {
      const answer = await post<Array<{ message: { id: string } }>>(
        `${url}/v1/messages`,
        { content, recipients: [{ uid: readerUid }] },
        author.body.access_token,
      );
      expect(answer.status).toBe(200);
      posted.push(answer.body[0]!.message.id);
    }
    // The edges as version 20 wrote them: no receiver_uid, no created_at.
    await ctx.db.runText(
      `MATCH (m:Message)-[r:RECEIVED_BY]->(:User {uid: $uid}) REMOVE r.receiver_uid, r.created_at`,
      { uid: readerUid },
    );
    const timeline = () =>
      getJson<{ messages: Array<{ id: string }> }>(
        `${url}/v1/messages/timeline?limit=10`,
        reader.body.access_token,
      );
    expect((await timeline()).body.messages).toEqual([]);

    await ctx.db.runText(
      `MATCH (s:SkeinSchema {id: "schema"}) SET s.applied = [v IN s.applied WHERE v <> 21]`,
    );
    await applySchema(ctx.db, log);

    const edges = await ctx.db.runText(
      `MATCH (m:Message)-[r:RECEIVED_BY]->(:User {uid: $uid})
       RETURN r.receiver_uid = $uid AND r.created_at = m.created_at AS written`,
      { uid: readerUid },
    );
    expect(edges.map((edge) => edge.written)).toEqual([true, true, true]);
    const after = await timeline();
    expect(after.status).toBe(200);
    expect(after.body.messages.map((message) => message.id)).toEqual([...posted].reverse());
  });
});

describe('applySchema', () => {
  it('when applied twice to the same database, then the same version, the same constraints, and no error', async () => {
    const db = Database.connect({
      uri: process.env.SKEIN_TEST_NEO4J_URI!,
      user: 'neo4j',
      password: process.env.SKEIN_TEST_NEO4J_PASSWORD!,
      database: undefined,
    });
    try {
      const names = async () =>
        (await db.runText('SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name')).map((row) => row.name);
      const first = await applySchema(db, log);
      const constraintsBefore = await names();
      const second = await applySchema(db, log);
      expect(first).toBeGreaterThanOrEqual(1);
      expect(second).toBe(first);
      expect(await schemaVersion(db)).toBe(first);
      expect(await names()).toEqual(constraintsBefore);
      expect(constraintsBefore).toEqual(
        expect.arrayContaining(['user_uid', 'user_tag_folded', 'session_id', 'api_key_id']),
      );
    } finally {
      await db.close();
    }
  });
});
