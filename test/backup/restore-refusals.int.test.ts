// What restore refuses, with nothing written: a non-empty data folder or database (unless --force), a
// damaged, cut-short or foreign archive, one with rows, entries or lines a backup never writes, and
// one from a newer Skein. And the NEO4J_URI path: a restore that fails while writing leaves the
// database and data folder empty; a restore into an empty external Neo4j, backed up again, gives back
// the same graph, types and all; --force replaces the graph and the file store.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import neo4jDriver from 'neo4j-driver';
import { extract } from 'tar';
import { graphEntryPath } from '../../src/components/backup/backup-archive.js';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { freePort } from '../support/test-neo4j.js';
import { runAdmin } from './backup-support.js';
import {
  FIXTURE_FILE,
  archiveEntries,
  damagedCopy,
  foreignTar,
  rawLine,
  repackedCopy,
  truncatedCopy,
  writeArchive,
} from './archive-fixtures.js';

jest.setTimeout(600_000);

const work = mkdtempSync(path.join(os.tmpdir(), 'skein-restore-refusals-'));
let archive: string;
let neo4jPort: number;

beforeAll(async () => {
  archive = await writeArchive(work, 'whole.backup');
  neo4jPort = await freePort();
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * An archive whose schema statements have the form a backup writes, the second of which Neo4j cannot
 * parse: its restore fails after every node and relationship is written and the first index made.
 */
function refusedStatementArchive(name: string): Promise<string> {
  return writeArchive(work, name, undefined, {
    rows: (rows) =>
      void rows.schema.push(
        { name: 'restored_tag', statement: 'CREATE INDEX `restored_tag` FOR (n:User) ON (n.user_tag)' },
        { name: 'broken', statement: 'CREATE INDEX `broken` FOR (n:User) ON (n.user_tag' },
      ),
  });
}

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

  it('when Neo4j refuses a statement of an embedded restore after the graph is written, then the data folder is gone again', async () => {
    const file = await refusedStatementArchive('refused-embedded.backup');
    const { parent, dataDir } = freshTarget();
    const result = await runAdmin(['restore', file], embeddedEnv(dataDir));
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/the restore failed while writing, and the target was emptied again: /);
    // The store the embedded Neo4j made, its password file and the staging folder: nothing is left.
    expect(readdirSync(parent)).toEqual([]);
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
      'holding a graph line that is not JSON',
      () =>
        writeArchive(work, 'not-json.backup', undefined, {
          rows: (rows) => void rows.nodes.push(rawLine('[6, ["User"], {"uid": ')),
        }),
      /is damaged: line 5 of graph\/nodes.ndjson.gz is not JSON/,
    ],
    [
      'holding a property value no backup writes',
      () =>
        writeArchive(work, 'undecodable.backup', undefined, {
          rows: (rows) => void rows.nodes.push([6, ['User'], { uid: { $zz: 1 } }]),
        }),
      /is damaged: line 5 of graph\/nodes.ndjson.gz is not a row a backup writes: not a value this backup format knows/,
    ],
    [
      'holding a schema statement that makes no index',
      () =>
        writeArchive(work, 'statement.backup', undefined, {
          rows: (rows) => void rows.schema.push({ name: 'x', statement: 'MATCH (n) DETACH DELETE n' }),
        }),
      /line 1 of graph\/schema.ndjson.gz is not a row a backup writes: a schema statement a backup never writes/,
    ],
    [
      'holding a line longer than 64 MiB',
      () =>
        writeArchive(work, 'long-line.backup', undefined, {
          rows: (rows) => void rows.nodes.push([6, ['User'], { bio: 'a'.repeat(64 * 1024 * 1024) }]),
        }),
      /is damaged: graph\/nodes.ndjson.gz holds a line longer than 64 MiB/,
    ],
    [
      'holding a graph entry twice',
      () =>
        repackedCopy(archive, path.join(work, 'twice.backup'), (inner) => [
          ...archiveEntries(inner),
          graphEntryPath('nodes'),
        ]),
      /holds "graph\/nodes.ndjson.gz" twice/,
    ],
    [
      'holding an uploaded file twice',
      () =>
        repackedCopy(archive, path.join(work, 'blob-twice.backup'), (inner) => {
          const entries = archiveEntries(inner);
          return [...entries, entries.at(-1)!];
        }),
      /holds "files\/[0-9a-f]{2}\/[0-9a-f]{62}" twice/,
    ],
    [
      'holding a ../ entry',
      () =>
        repackedCopy(archive, path.join(work, 'escape.backup'), (inner) => {
          writeFileSync(path.join(inner, '..', 'escape.txt'), 'outside\n');
          const entries = archiveEntries(inner);
          return [...entries.slice(0, 2), '../escape.txt', ...entries.slice(2)];
        }),
      /unexpected entry "\.\.\/escape.txt"/,
    ],
    [
      'holding a symbolic link',
      () =>
        repackedCopy(archive, path.join(work, 'link.backup'), (inner) => {
          rmSync(path.join(inner, graphEntryPath('nodes')));
          symlinkSync('/etc/passwd', path.join(inner, graphEntryPath('nodes')));
          return archiveEntries(inner);
        }),
      /unexpected entry "graph\/nodes.ndjson.gz"/,
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
  const files = path.join(work, 'external-files');

  beforeAll(async () => {
    neo4j = await startEmbeddedNeo4j({
      dataDir: external,
      port: await freePort(),
      heap: '256m',
      pageCache: '64m',
      log: createLogger('warn'),
    });
  });

  afterAll(async () => {
    await neo4j?.stop();
  });

  const env = (filesDir: string, dataDir = path.join(work, 'unused')) => ({
    SKEIN_DATA_DIR: dataDir,
    ...(filesDir ? { SKEIN_FILES_DIR: filesDir } : {}),
    NEO4J_URI: neo4j!.target.uri,
    NEO4J_PASSWORD: neo4j!.target.password,
  });

  /** What the external database holds: its node count and its indexes and constraints (not lookups). */
  async function databaseHolds(): Promise<{ nodes: number; schema: string[] }> {
    const driver = neo4jDriver.driver(
      neo4j!.target.uri,
      neo4jDriver.auth.basic(neo4j!.target.user, neo4j!.target.password),
    );
    try {
      const count = await driver.executeQuery('MATCH (n) RETURN count(n) AS nodes');
      const indexes = await driver.executeQuery(
        "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name",
      );
      const constraints = await driver.executeQuery('SHOW CONSTRAINTS YIELD name RETURN name');
      return {
        nodes: Number(count.records[0]!.get('nodes')),
        schema: [...indexes.records, ...constraints.records].map((record) => String(record.get('name'))),
      };
    } finally {
      await driver.close();
    }
  }

  it('when the archive holds a row no backup writes, then it is refused and the database and data folder stay empty', async () => {
    const file = await writeArchive(work, 'bad-row.backup', undefined, {
      rows: (rows) => void rows.relationships.push([3, 'MANAGES', 2, { since: { $dt: 'soon' } }]),
    });
    const { parent, dataDir } = freshTarget();
    const result = await runAdmin(['restore', file], env('', dataDir));
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/line 2 of graph\/relationships.ndjson.gz is not a row a backup writes/);
    expect(await databaseHolds()).toEqual({ nodes: 0, schema: [] });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('when Neo4j refuses a statement after the graph is written, then the restore is refused and the target is emptied again (the next test restores into it)', async () => {
    const file = await refusedStatementArchive('refused-statement.backup');
    const { parent, dataDir } = freshTarget();
    const result = await runAdmin(['restore', file], env('', dataDir));
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/the restore failed while writing, and the target was emptied again: /);
    // No node, no SkeinRestore key or index, no index of the archive's; no file, no staging folder.
    expect(await databaseHolds()).toEqual({ nodes: 0, schema: [] });
    expect(readdirSync(parent)).toEqual([]);
  });

  it('when an archive is restored into an empty external Neo4j and backed up again, then the graph comes back the same, types and all', async () => {
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
    // Readable by its owner only, and no partial file left beside it.
    expect((statSync(again).mode & 0o777).toString(8)).toBe('600');
    expect(existsSync(`${again}.partial`)).toBe(false);
  });

  it('when an archive is restored with --force into a database and file store that hold another, then only the archive is left', async () => {
    // What the store holds before: a graph (restored here if the test before did not) and blobs.
    const first = await runAdmin(['restore', '--force', archive], env(files));
    expect(first.code).toBe(0);
    const old = path.join(files, 'ab', 'c'.repeat(62));
    mkdirSync(path.dirname(old), { recursive: true });
    writeFileSync(old, 'a file of the old store\n');
    mkdirSync(path.join(files, 'tmp'), { recursive: true });
    writeFileSync(path.join(files, 'tmp', 'upload.part'), 'half an upload');
    const other = await writeArchive(work, 'other.backup', undefined, {
      file: 'bytes of another file\n',
      rows: (rows) => {
        rows.nodes[1] = [2, ['User'], { uid: 'bb000001', user_tag: 'other-one' }];
        rows.nodes[2] = [3, ['User'], { uid: 'bb000002', user_tag: 'other-two' }];
      },
    });

    const refused = await runAdmin(['restore', other], env(files));
    expect(refused.stderr).toMatch(
      /\(the file store\) is not empty: restore into an empty one, or pass --force/,
    );

    const forced = await runAdmin(['restore', other, '--force'], env(files));
    expect({ code: forced.code, stderr: forced.code === 0 ? '' : forced.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    const blobs = readdirSync(files).flatMap((prefix) =>
      readdirSync(path.join(files, prefix)).map((name) => ({
        name: `${prefix}/${name}`,
        bytes: readFileSync(path.join(files, prefix, name), 'utf8'),
      })),
    );
    expect(blobs).toEqual([{ name: expect.any(String), bytes: 'bytes of another file\n' }]);
    expect(blobs[0]!.bytes).not.toBe(FIXTURE_FILE);

    const again = path.join(work, 'after-force.backup');
    const backup = await runAdmin(['backup', again], env(files));
    expect(backup.code).toBe(0);
    expect(await graphRows(again)).toEqual(await graphRows(other));
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
