// `npm run admin -- restore <file>`: brings an archive of `backup` back into an empty store
// (docs/decisions/034-backup-restore-upgrades.md). The archive is read and checked whole into a
// staging folder first, so a damaged or foreign one is refused before anything is written to the
// target. The graph is then loaded in batches (each node keyed by its archive id until its
// relationships are made), the archive's indexes and constraints are made again, the derived
// unread twins are brought in step, and the blobs move into the file store. The store keeps the
// schema version it was backed up at: the service's next start applies the versions it lacks, as
// for any store an earlier Skein wrote.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { latestSchemaVersion } from '../../platform/neo4j/schema-setup.js';
import {
  ArchiveError,
  BackupRefusal,
  unpackArchive,
  type GraphEntry,
  type Manifest,
} from './backup-archive.js';
import { importBatch, readAll, runWrite, type GraphConnection } from './backup-repository.js';
import { decodeProperties, type Json } from './graph-values.js';
import type { Progress } from './progress.js';

const BATCH_ROWS = 10_000;
/** What a schema statement of an archive may be: an index or constraint made again, nothing else. */
const SCHEMA_STATEMENT =
  /^CREATE (CONSTRAINT|(RANGE |TEXT |POINT |FULLTEXT |VECTOR )?INDEX) `[^`]+` (FOR|ON) /;

export class RestoreRefused extends BackupRefusal {}

export interface RestoreTarget {
  connection: GraphConnection;
  /** Ends what connecting started (an embedded Neo4j is stopped). */
  release(): Promise<void>;
}

export interface RestoreOptions {
  archive: string;
  /** Where the blobs go (SKEIN_FILES_DIR). */
  filesDir: string;
  /** The folder the staging folder is made in: beside the target, on its file system. */
  stagingParent: string;
  /** Replace what the target holds instead of refusing it. */
  force: boolean;
  /** Called once the archive has been checked: connects to the target (starts an embedded Neo4j). */
  connect(): Promise<RestoreTarget>;
  progress: Progress;
}

export interface RestoreSummary {
  manifest: Manifest;
  nodes: number;
  relationships: number;
  /** Relationships of the archive whose end it lacks (made while the backup read), left out. */
  leftOut: number;
  events: number;
  files: number;
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreSummary> {
  const { progress } = options;
  if (!options.force && !(await isEmptyFolder(options.filesDir)))
    throw new RestoreRefused(
      `${options.filesDir} (the file store) is not empty: restore into an empty one, or pass --force`,
    );
  await mkdir(options.stagingParent, { recursive: true });
  const staging = await mkdtemp(path.join(options.stagingParent, '.skein-restore-'));
  try {
    progress.phase(`checking ${options.archive}`);
    const unpacked = await unpackArchive(path.resolve(options.archive), staging);
    const { manifest } = unpacked;
    if (manifest.schema.version > latestSchemaVersion())
      throw new ArchiveError(
        `${options.archive} was taken from a newer Skein (schema version ${manifest.schema.version}; this code knows up to ${latestSchemaVersion()}): restore it with that version`,
      );
    const target = await options.connect();
    try {
      const { connection } = target;
      const [count] = await readAll(connection, 'backup/count-nodes');
      const existing = Number(count?.nodes ?? 0);
      if (existing > 0) {
        if (!options.force)
          throw new RestoreRefused(
            `the target database is not empty (${existing} nodes): restore into an empty one, or pass --force`,
          );
        progress.phase(`emptying the target (${existing} nodes)`);
        await emptyTarget(connection);
      }
      const loaded = await loadGraph(connection, unpacked.graph, progress);
      progress.phase('moving the uploaded files into place');
      const files = await moveBlobs(unpacked.filesDir, options.filesDir);
      return { manifest, ...loaded, files };
    } finally {
      await target.release();
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function loadGraph(
  connection: GraphConnection,
  graph: Record<GraphEntry, string>,
  progress: Progress,
): Promise<Omit<RestoreSummary, 'manifest' | 'files'>> {
  await runWrite(connection, { name: 'backup/restore-key-index' });
  await runWrite(connection, { name: 'backup/await-indexes' });
  progress.phase('writing nodes');
  let nodes = 0;
  for await (const rows of batches(graph.nodes)) {
    nodes += await importBatch(connection, 'backup/import-nodes', rows.map(nodeRow));
    progress.count('nodes', rows.length);
  }
  progress.phase('writing relationships');
  let relationships = 0;
  let read = 0;
  for await (const rows of batches(graph.relationships)) {
    read += rows.length;
    relationships += await importBatch(connection, 'backup/import-relationships', rows.map(relationshipRow));
    progress.count('relationships', rows.length);
  }
  progress.phase('writing the event log');
  let events = 0;
  for await (const rows of batches(graph.events)) {
    events += await importBatch(connection, 'backup/import-nodes', rows.map(nodeRow));
    progress.count('events', rows.length);
  }
  await runWrite(connection, { name: 'backup/clear-restore-keys' });
  await runWrite(connection, { name: 'backup/drop-restore-key-index' });
  progress.phase('making indexes and constraints');
  for await (const rows of batches(graph.schema)) {
    for (const row of rows as { statement: string }[]) {
      if (!SCHEMA_STATEMENT.test(row.statement))
        throw new ArchiveError(
          `the archive's schema holds a statement a backup never writes: ${row.statement.slice(0, 80)}`,
        );
      await runWrite(connection, { text: row.statement });
    }
  }
  await runWrite(connection, { name: 'backup/await-indexes' });
  progress.phase('bringing unread counts in step');
  await runWrite(connection, { name: 'backup/unread-twins' });
  await runWrite(connection, { name: 'backup/unread-twins-missing' });
  return { nodes, relationships, leftOut: read - relationships, events };
}

type NodeLine = [number, string[], Record<string, Json>];
type RelationshipLine = [number, string, number, Record<string, Json>];

function nodeRow(line: unknown) {
  const [id, labels, props] = line as NodeLine;
  return { id, labels, props: decodeProperties(props) };
}

function relationshipRow(line: unknown) {
  const [from, type, to, props] = line as RelationshipLine;
  return { from, type, to, props: decodeProperties(props) };
}

/** The rows of a gzipped NDJSON entry, BATCH_ROWS at a time. */
async function* batches(file: string): AsyncGenerator<unknown[]> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  let batch: unknown[] = [];
  for await (const line of lines) {
    if (line.length === 0) continue;
    batch.push(JSON.parse(line));
    if (batch.length >= BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function emptyTarget(connection: GraphConnection): Promise<void> {
  await runWrite(connection, { name: 'backup/delete-all' });
  const schema = await readAll(connection, 'backup/list-schema');
  for (const constraint of new Set(
    schema.map((row) => row.constraint_name).filter((name) => typeof name === 'string'),
  )) {
    await runWrite(connection, {
      text: `DROP CONSTRAINT \`${String(constraint).replace(/`/g, '``')}\` IF EXISTS`,
    });
  }
  for (const row of schema.filter((entry) => entry.constraint_name === null)) {
    await runWrite(connection, { text: `DROP INDEX \`${String(row.name).replace(/`/g, '``')}\` IF EXISTS` });
  }
}

/** Moves every staged blob to its place in the file store; answers how many. */
async function moveBlobs(from: string, to: string): Promise<number> {
  let moved = 0;
  let prefixes: string[];
  try {
    prefixes = await readdir(from);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  for (const prefix of prefixes) {
    await mkdir(path.join(to, prefix), { recursive: true });
    for (const name of await readdir(path.join(from, prefix))) {
      const source = path.join(from, prefix, name);
      const target = path.join(to, prefix, name);
      try {
        await rename(source, target);
      } catch (error) {
        // The staging folder is beside the data folder; SKEIN_FILES_DIR may be another file system.
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        await copyFile(source, target);
      }
      moved++;
    }
  }
  return moved;
}

/** A folder that does not exist, or holds nothing. */
export async function isEmptyFolder(folder: string): Promise<boolean> {
  try {
    if (!(await stat(folder)).isDirectory()) return false;
    return (await readdir(folder)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}
