// `npm run admin -- restore <file>`: brings an archive of `backup` back into an empty store
// (docs/decisions/034-backup-restore-upgrades.md). The archive is read and checked whole into a
// staging folder first, every row decoded, so a damaged or foreign one is refused before anything is
// written to the target. The graph is then loaded in batches (each node keyed by its archive id until
// its relationships are made), the archive's indexes and constraints are made again, the derived
// unread twins are brought in step, and the blobs move into the file store. A failure while writing
// (Neo4j refusing a statement, a lost connection) empties the target again before it is reported, so
// that no restore leaves a half-written store behind. The store keeps the
// schema version it was backed up at: the service's next start applies the versions it lacks, as
// for any store an earlier Skein wrote.
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { latestSchemaVersion } from '../../platform/neo4j/schema-setup.js';
import {
  ArchiveError,
  BackupRefusal,
  graphRows,
  unpackArchive,
  type GraphEntry,
  type GraphRows,
  type Manifest,
  type Unpacked,
} from './backup-archive.js';
import { importBatch, readAll, runWrite, type GraphConnection } from './backup-repository.js';
import { toNumber } from './graph-values.js';
import type { Progress } from './progress.js';

const BATCH_ROWS = 10_000;
/** What of a file store a forced restore removes: the blobs' folders and the uploads' tmp/. */
const FILE_STORE_ENTRY = /^([0-9a-f]{2}|tmp)$/;

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
  /** Replace what the target holds (its graph, indexes and file store) instead of refusing it. */
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
  // The folders made for the staging folder (the data folder, with NEO4J_URI) go too if it fails.
  const made = await mkdir(options.stagingParent, { recursive: true });
  const staging = await mkdtemp(path.join(options.stagingParent, '.skein-restore-'));
  let restored = false;
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
      const existing = toNumber(count?.nodes ?? 0);
      if (existing > 0 && !options.force)
        throw new RestoreRefused(
          `the target database is not empty (${existing} nodes): restore into an empty one, or pass --force`,
        );
      const summary = await writeTarget(connection, unpacked, options, existing);
      restored = true;
      return summary;
    } finally {
      await target.release();
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
    if (!restored && made) await removeEmptyFolders(options.stagingParent, made);
  }
}

/** Removes `from` and each parent up to `top` while they are empty. */
async function removeEmptyFolders(from: string, top: string): Promise<void> {
  for (let folder = from; ; folder = path.dirname(folder)) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
    if (folder === top || path.dirname(folder) === folder) return;
  }
}

/**
 * Writes a checked archive into the target (emptied first with --force). Whatever fails on the way
 * empties the target again (the graph, the indexes and constraints the restore made, the restore's
 * own keys and index, the blobs it moved) before it is reported as a RestoreRefused.
 */
async function writeTarget(
  connection: GraphConnection,
  unpacked: Unpacked,
  options: RestoreOptions,
  existing: number,
): Promise<RestoreSummary> {
  const { progress } = options;
  // An external database with no node may still hold indexes of its own: they are not the restore's.
  const kept = options.force
    ? new Set<string>()
    : new Set((await listSchema(connection)).map((row) => row.name));
  const moved: MovedBlobs = { files: [], folders: [] };
  try {
    if (options.force) {
      progress.phase(`emptying the target (${existing} nodes, and the file store)`);
      await emptyTarget(connection, kept);
      await clearFileStore(options.filesDir);
    }
    const loaded = await loadGraph(connection, unpacked.graph, progress);
    progress.phase('moving the uploaded files into place');
    await moveBlobs(unpacked.filesDir, options.filesDir, moved);
    return { manifest: unpacked.manifest, ...loaded, files: moved.files.length };
  } catch (error) {
    const reason = (error as Error).message;
    try {
      await emptyTarget(connection, kept);
      await removeMoved(moved);
    } catch (cleanup) {
      throw new RestoreRefused(
        `the restore failed while writing (${reason}), and emptying the target again failed too (${(cleanup as Error).message}): the target is half-written; restore again with --force`,
        { cause: error },
      );
    }
    throw new RestoreRefused(
      `the restore failed while writing, and the target was emptied again${options.force ? ' (--force had removed what it held before)' : ''}: ${reason}`,
      { cause: error },
    );
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
  for await (const rows of batches(graph.nodes, 'nodes')) {
    nodes += await importBatch(connection, 'backup/import-nodes', rows);
    progress.count('nodes', rows.length);
  }
  progress.phase('writing relationships');
  let relationships = 0;
  let read = 0;
  for await (const rows of batches(graph.relationships, 'relationships')) {
    read += rows.length;
    relationships += await importBatch(connection, 'backup/import-relationships', rows);
    progress.count('relationships', rows.length);
  }
  progress.phase('writing the event log');
  let events = 0;
  for await (const rows of batches(graph.events, 'events')) {
    events += await importBatch(connection, 'backup/import-nodes', rows);
    progress.count('events', rows.length);
  }
  await runWrite(connection, { name: 'backup/clear-restore-keys' });
  await runWrite(connection, { name: 'backup/drop-restore-key-index' });
  progress.phase('making indexes and constraints');
  // Each statement was checked to be an index's or constraint's when the archive was unpacked.
  for await (const rows of batches(graph.schema, 'schema')) {
    for (const row of rows) await runWrite(connection, { text: row.statement });
  }
  await runWrite(connection, { name: 'backup/await-indexes' });
  progress.phase('bringing unread counts in step');
  await runWrite(connection, { name: 'backup/unread-twins' });
  await runWrite(connection, { name: 'backup/unread-twins-missing' });
  return { nodes, relationships, leftOut: read - relationships, events };
}

/** The rows of a staged graph entry, BATCH_ROWS at a time. */
async function* batches<E extends GraphEntry>(file: string, entry: E): AsyncGenerator<GraphRows[E][]> {
  let batch: GraphRows[E][] = [];
  for await (const row of graphRows(file, entry)) {
    batch.push(row);
    if (batch.length >= BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function listSchema(
  connection: GraphConnection,
): Promise<{ name: string; constraint: string | null }[]> {
  return (await readAll(connection, 'backup/list-schema')).map((row) => ({
    name: String(row.name),
    constraint: typeof row.constraint_name === 'string' ? row.constraint_name : null,
  }));
}

/** Deletes every node, and every index and constraint but those named in `kept`. */
async function emptyTarget(connection: GraphConnection, kept: Set<string>): Promise<void> {
  await runWrite(connection, { name: 'backup/delete-all' });
  const schema = (await listSchema(connection)).filter((row) => !kept.has(row.name));
  for (const constraint of new Set(schema.map((row) => row.constraint).filter((name) => name !== null))) {
    await runWrite(connection, { text: `DROP CONSTRAINT \`${constraint.replace(/`/g, '``')}\` IF EXISTS` });
  }
  for (const row of schema.filter((entry) => entry.constraint === null)) {
    await runWrite(connection, { text: `DROP INDEX \`${row.name.replace(/`/g, '``')}\` IF EXISTS` });
  }
}

/**
 * Empties a file store for --force: its blobs' folders and its uploads' tmp/. Nothing else is touched,
 * in case SKEIN_FILES_DIR names a folder that holds more than the store.
 */
async function clearFileStore(filesDir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(filesDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names.filter((entry) => FILE_STORE_ENTRY.test(entry)))
    await rm(path.join(filesDir, name), { recursive: true, force: true });
}

/** What moveBlobs put in place: the blobs, and the folders it made for them (to undo a failed restore). */
interface MovedBlobs {
  files: string[];
  folders: string[];
}

/** Moves every staged blob to its place in the file store, noting each in `moved` as it goes. */
async function moveBlobs(from: string, to: string, moved: MovedBlobs): Promise<void> {
  let prefixes: string[];
  try {
    prefixes = await readdir(from);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const prefix of prefixes) {
    const made = await mkdir(path.join(to, prefix), { recursive: true });
    if (made) moved.folders.push(made);
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
      moved.files.push(target);
    }
  }
}

async function removeMoved(moved: MovedBlobs): Promise<void> {
  for (const file of moved.files) await unlink(file).catch(() => undefined);
  // Made by this restore: they hold nothing of anyone else's.
  for (const folder of moved.folders) await rm(folder, { recursive: true, force: true });
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
