// One real Neo4j for the whole test run, started with the same launcher the service uses, on a
// free port with its store in a temporary directory. Tests find it through SKEIN_TEST_NEO4J_*.
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { createLogger } from '../../src/platform/logger.js';
import { Database } from '../../src/platform/neo4j/database.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { applySchema } from '../../src/platform/neo4j/schema-setup.js';

declare global {
  var __SKEIN_TEST_NEO4J__: { neo4j: EmbeddedNeo4j; dataDir: string } | undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startTestNeo4j(): Promise<void> {
  const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skein-test-'));
  const neo4j = await startEmbeddedNeo4j({
    dataDir,
    port: await freePort(),
    heap: '1g',
    pageCache: '256m',
    log,
  });
  const db = Database.connect(neo4j.target);
  await applySchema(db, log);
  await db.close();
  process.env.SKEIN_TEST_NEO4J_URI = neo4j.target.uri;
  process.env.SKEIN_TEST_NEO4J_PASSWORD = neo4j.target.password;
  globalThis.__SKEIN_TEST_NEO4J__ = { neo4j, dataDir };
}

export async function stopTestNeo4j(): Promise<void> {
  const running = globalThis.__SKEIN_TEST_NEO4J__;
  if (!running) return;
  await running.neo4j.stop();
  rmSync(running.dataDir, { recursive: true, force: true });
}
