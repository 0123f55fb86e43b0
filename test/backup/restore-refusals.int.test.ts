// What restore refuses, with nothing written: a non-empty data folder or database (unless --force), a
// damaged, cut-short or foreign archive, and one from a newer Skein. And the NEO4J_URI path: a restore
// into an empty external Neo4j, backed up again, gives back the same graph, types and all.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { extract } from 'tar';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { freePort } from '../support/test-neo4j.js';
import { runAdmin } from './backup-support.js';
import { damagedCopy, foreignTar, truncatedCopy, writeArchive } from './archive-fixtures.js';

jest.setTimeout(600_000);

const work = mkdtempSync(path.join(os.tmpdir(), 'skein-restore-refusals-'));
let archive: string;
let neo4jPort: number;

beforeAll(async () => {
  archive = await writeArchive(work, 'whole.backup');
  neo4jPort = await freePort();
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A data folder that does not exist yet, in a parent that holds nothing else. */
function freshTarget(): { parent: string; dataDir: string } {
  const parent = mkdtempSync(path.join(work, 'target-'));
  return { parent, dataDir: path.join(parent, 'data') };
}

function embeddedEnv(dataDir: string): Record<string, string> {
  return { SKEIN_DATA_DIR: dataDir, SKEIN_NEO4J_PORT: String(neo4jPort) };
}

describe('npm run admin -- restore refuses', () => {
  it('when the data folder holds something, then it refuses and leaves it as it was', async () => {
    const { dataDir } = freshTarget();
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, 'keep.txt'), 'mine');
    const result = await runAdmin(['restore', archive], embeddedEnv(dataDir));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is not empty: restore into a new folder, or pass --force/);
    expect(readdirSync(dataDir)).toEqual(['keep.txt']);
  });

  it('when the external database holds nodes, then it refuses without --force and writes nothing', async () => {
    const { dataDir } = freshTarget();
    const result = await runAdmin(['restore', archive], {
      SKEIN_DATA_DIR: dataDir,
      NEO4J_URI: process.env.SKEIN_TEST_NEO4J_URI!,
      NEO4J_PASSWORD: process.env.SKEIN_TEST_NEO4J_PASSWORD!,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the target database is not empty \(\d+ nodes\)/);
    // The blobs are moved in only after the graph: the file store is untouched.
    expect(existsSync(path.join(dataDir, 'files'))).toBe(false);
  });

  for (const [what, make, message] of [
    [
      'damaged',
      () => damagedCopy(archive, path.join(work, 'damaged.backup')),
      /is damaged: graph\/nodes.ndjson.gz does not match its checksum/,
    ],
    ['cut short', () => truncatedCopy(archive, path.join(work, 'short.backup')), /is damaged/],
    [
      'someone else’s tar',
      () => foreignTar(work),
      /is not a Skein backup: it does not start with manifest.json/,
    ],
    [
      'not an archive at all',
      () => {
        const file = path.join(work, 'notes.txt');
        writeFileSync(file, 'just some text, long enough to be read as a header or not\n'.repeat(20));
        return file;
      },
      /is damaged or not a tar archive|is not a Skein backup/,
    ],
    [
      'from a newer Skein',
      () => writeArchive(work, 'newer.backup', (manifest) => (manifest.schema.version = 999)),
      /was taken from a newer Skein \(schema version 999; this code knows up to \d+\)/,
    ],
  ] as const) {
    it(`when the archive is ${what}, then it says so and writes nothing`, async () => {
      const file = await make();
      const { parent, dataDir } = freshTarget();
      const result = await runAdmin(['restore', file], embeddedEnv(dataDir));
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
      expect(result.stderr).toMatch(message);
      // No data folder, no staging folder left beside it.
      expect(readdirSync(parent)).toEqual([]);
    });
  }
});

describe('npm run admin -- restore and backup with NEO4J_URI', () => {
  let neo4j: EmbeddedNeo4j | undefined;
  const external = path.join(work, 'external-neo4j');

  afterAll(async () => {
    await neo4j?.stop();
  });

  it('when an archive is restored into an empty external Neo4j and backed up again, then the graph comes back the same, types and all', async () => {
    neo4j = await startEmbeddedNeo4j({
      dataDir: external,
      port: await freePort(),
      heap: '256m',
      pageCache: '64m',
      log: createLogger('warn'),
    });
    const env = (filesDir: string) => ({
      SKEIN_DATA_DIR: path.join(work, 'unused'),
      SKEIN_FILES_DIR: filesDir,
      NEO4J_URI: neo4j!.target.uri,
      NEO4J_PASSWORD: neo4j!.target.password,
    });
    const files = path.join(work, 'external-files');
    const restore = await runAdmin(['restore', archive], env(files));
    expect({ code: restore.code, stderr: restore.code === 0 ? '' : restore.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    expect(restore.stdout).toContain('4 nodes, 1 relationships, 1 event log entries, 1 uploaded files');

    const again = path.join(work, 'again.backup');
    const backup = await runAdmin(['backup', again], env(files));
    expect({ code: backup.code, stderr: backup.code === 0 ? '' : backup.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    expect(await graphRows(again)).toEqual(await graphRows(archive));
  });
});

/** The nodes, relationships and events of an archive, without the ids (the store gives its own). */
async function graphRows(file: string): Promise<Record<string, unknown[]>> {
  const into = mkdtempSync(path.join(work, 'rows-'));
  await extract({ file, cwd: into });
  const rows: Record<string, unknown[]> = {};
  for (const entry of ['nodes', 'relationships', 'events']) {
    const lines: unknown[] = [];
    const input = createReadStream(path.join(into, 'graph', `${entry}.ndjson.gz`)).pipe(createGunzip());
    for await (const line of createInterface({ input })) {
      const row = JSON.parse(line) as unknown[];
      lines.push(entry === 'relationships' ? [row[1], row[3]] : [row[1], row[2]]);
    }
    rows[entry] = lines.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return rows;
}
