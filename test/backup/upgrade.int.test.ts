// Upgrades keep the data: test/fixtures/backup/old-store.tgz is the data folder of an earlier Skein
// (schema version 20, before the receivers edges carried their recipient and time: schema 21),
// written by that commit's own service (make-old-store-fixture.ts). The current service starts on it,
// migrates it, and answers the reads the old one answered (with the fields added since), signs its
// users in with their passwords and key. A store whose schema version is newer than this code knows
// is refused at start with a message saying so, and left as it was.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { extract } from 'tar';
import { createLogger } from '../../src/platform/logger.js';
import { Database } from '../../src/platform/neo4j/database.js';
import { startEmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { latestSchemaVersion } from '../../src/platform/neo4j/schema-setup.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { processApi } from '../support/process-api.js';
import { waitForPortClosed, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';
import { serviceEnv, startService, stopService } from './backup-support.js';
import { readAll, type SeededStore } from './store-seed.js';

jest.setTimeout(900_000);

const FIXTURE = path.join(PROJECT_ROOT, 'test', 'fixtures', 'backup');
const recorded = JSON.parse(readFileSync(path.join(FIXTURE, 'old-store.json'), 'utf8')) as {
  url: string;
  store: SeededStore;
  answers: Record<string, unknown>;
};
const work = mkdtempSync(path.join(os.tmpdir(), 'skein-upgrade-'));
const dataDir = path.join(work, 'data');
mkdirSync(dataDir);
let httpPort: number;
let neo4jPort: number;
let service: ServiceProcess | undefined;

function env(): Record<string, string> {
  return {
    ...serviceEnv(dataDir, httpPort, neo4jPort),
    // The answers name files under the old service's URL; its events must outlive the fixture's age.
    PUBLIC_URL: recorded.url,
    SKEIN_EVENT_RETENTION_DAYS: '36500',
  };
}

/** Reads or changes the stopped service's store through a Neo4j of the test's own. */
async function withStore<T>(use: (db: Database) => Promise<T>): Promise<T> {
  const neo4j = await startEmbeddedNeo4j({
    dataDir,
    port: neo4jPort,
    heap: '256m',
    pageCache: '64m',
    log: createLogger('warn'),
  });
  const db = Database.connect(neo4j.target);
  try {
    return await use(db);
  } finally {
    await db.close();
    await neo4j.stop();
  }
}

beforeAll(async () => {
  httpPort = await freePort();
  neo4jPort = await freePort();
  await extract({ file: path.join(FIXTURE, 'old-store.tgz'), cwd: dataDir });
});

afterAll(async () => {
  await stopService(service);
  await waitForPortClosed(neo4jPort).catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

describe('a store written by an earlier Skein', () => {
  it('when the current service starts on it, then it is migrated and answers every read as before', async () => {
    const before = await withStore(
      async (db) => (await db.runText('MATCH (s:SkeinSchema) RETURN s.version AS version'))[0],
    );
    expect(before?.version).toBeLessThan(latestSchemaVersion());
    service = await startService(env());
    const api = processApi(service.url);
    const store = { ...recorded.store };
    for (const who of ['alice', 'bob'] as const) {
      const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
        body: { user_tag: store[who].tag, password: store[who].password },
      });
      expect({ who, status: login.status }).toEqual({ who, status: 200 });
      store[who] = { ...store[who], token: login.body.access_token };
    }
    const me = await api.request<{ uid: string }>('GET', '/v1/users/me', { apiKey: store.key });
    expect(me.body.uid).toBe(store.alice.uid);
    // Fields added since the old commit may be there too; everything it answered is.
    expect(await readAll(api, store)).toMatchObject(recorded.answers);
    await stopService(service);
    service = undefined;
    await waitForPortClosed(neo4jPort);
  });

  it('when the store was written by a newer Skein, then the service refuses to start and leaves it untouched', async () => {
    const newer = latestSchemaVersion() + 1;
    const count = await withStore(async (db) => {
      await db.runText(
        'MATCH (s:SkeinSchema {id: "schema"}) SET s.version = $newer, s.applied = s.applied + [$newer]',
        { newer },
      );
      return (await db.runText('MATCH (n) RETURN count(n) AS nodes'))[0]?.nodes;
    });
    await waitForPortClosed(neo4jPort);
    await expect(startService(env())).rejects.toThrow(
      new RegExp(
        `written by a newer Skein \\(schema version ${newer}; this code knows up to ${latestSchemaVersion()}\\)`,
      ),
    );
    await waitForPortClosed(neo4jPort);
    const after = await withStore(async (db) => ({
      schema: (await db.runText('MATCH (s:SkeinSchema) RETURN s.version AS version'))[0]?.version,
      nodes: (await db.runText('MATCH (n) RETURN count(n) AS nodes'))[0]?.nodes,
    }));
    expect(after).toEqual({ schema: newer, nodes: count });
  });
});
