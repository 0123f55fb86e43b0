// `npm run admin -- backup <file>`: one archive of everything the service needs to come back, read
// while it runs (docs/decisions/034-backup-restore-upgrades.md). The graph is read in one read
// transaction, in three passes: every node but the event log's, then every relationship, then the
// event log. Neo4j reads committed data as it goes (read-committed, no snapshot), so the passes are
// ordered for what a restore can rely on: a relationship whose end was made after the node pass is
// left out by the restore, and the event log read last holds the events of every message read
// before it (a post writes its events in its own transaction). Only the blobs that the File nodes
// read name are packed: a blob is stored before its metadata and never removed, so each is there,
// and an upload that finished after the node pass is in neither.
import { link, mkdir, mkdtemp, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transaction } from 'neo4j-driver';
import { blobPath } from '../files/file-store.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  BackupRefusal,
  GRAPH_ENTRIES,
  MANIFEST_ENTRY,
  NdjsonWriter,
  graphEntryPath,
  packArchive,
  type EntrySummary,
  type GraphEntry,
  type Manifest,
} from './backup-archive.js';
import { readAll, streamRows, type BackupRecord, type GraphConnection } from './backup-repository.js';
import { encodeProperties, toNumber } from './graph-values.js';
import type { Progress } from './progress.js';

export interface BackupOptions {
  connection: GraphConnection;
  filesDir: string;
  output: string;
  /** What the manifest names as the source: `embedded`, or the NEO4J_URI without credentials. */
  source: string;
  skeinVersion: string;
  progress: Progress;
}

export interface BackupSummary {
  /** The manifest written into the archive. */
  manifest: Manifest;
  /** The whole backup's time, packing included (the manifest's took_ms is the reading's). */
  tookMs: number;
}

export async function takeBackup(options: BackupOptions): Promise<BackupSummary> {
  const started = Date.now();
  const output = path.resolve(options.output);
  if (await exists(output)) throw new BackupError(`${output} exists already: name a new file`);
  // Staged beside the archive (the same file system, and room for it), readable by its owner only.
  const staging = await mkdtemp(path.join(path.dirname(output), `.${path.basename(output)}.`));
  try {
    await mkdir(path.join(staging, 'graph'), { mode: 0o700 });
    const blobs = new Set<string>();
    const summaries = await exportGraph(options, staging, (sha256) => blobs.add(sha256));
    const schemaNode = summaries.schemaVersion;
    let fileBytes = 0;
    for (const sha256 of blobs) {
      const size = await blobSizeOrNull(options.filesDir, sha256);
      if (size === null)
        throw new BackupError(
          `the uploaded file ${sha256} is named by the graph but missing from ${options.filesDir}: is SKEIN_FILES_DIR the service's?`,
        );
      fileBytes += size;
    }
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      format_version: ARCHIVE_FORMAT_VERSION,
      created_at: new Date(started).toISOString(),
      skein_version: options.skeinVersion,
      schema: schemaNode,
      source: options.source,
      graph: summaries.entries,
      files: { count: blobs.size, bytes: fileBytes },
      took_ms: Date.now() - started,
    };
    options.progress.phase(`packing ${blobs.size} uploaded files (${formatBytes(fileBytes)})`);
    await writeFile(path.join(staging, MANIFEST_ENTRY), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    const partial = `${output}.partial`;
    await rm(partial, { force: true });
    try {
      await packArchive(staging, options.filesDir, [...blobs].sort(), partial);
      // Named only once whole: a backup cut short never leaves a file that looks like one. A link,
      // unlike a rename, fails when a file of that name appeared while the backup ran.
      await link(partial, output);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new BackupError(`${output} was made while the backup ran: name a new file`);
      throw error;
    } finally {
      await unlink(partial).catch(() => undefined);
    }
    return { manifest, tookMs: Date.now() - started };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

export class BackupError extends BackupRefusal {}

interface ExportSummary {
  entries: Record<GraphEntry, EntrySummary>;
  schemaVersion: Manifest['schema'];
}

async function exportGraph(
  options: BackupOptions,
  staging: string,
  onBlob: (sha256: string) => void,
): Promise<ExportSummary> {
  const { connection, progress } = options;
  const entries = {} as Record<GraphEntry, EntrySummary>;
  const writers = Object.fromEntries(
    GRAPH_ENTRIES.map((entry) => [entry, new NdjsonWriter(path.join(staging, graphEntryPath(entry)))]),
  ) as Record<GraphEntry, NdjsonWriter>;
  let schemaVersion: Manifest['schema'] = { version: 0, applied: [] };
  try {
    // Indexes and constraints first: they do not change while the service runs.
    for (const row of await readAll(connection, 'backup/export-schema')) {
      await writers.schema.write({ name: row.name, statement: row.statement, constraint: row.is_constraint });
    }
    for (const row of await readAll(connection, 'backup/export-constraints')) {
      await writers.schema.write({ name: row.name, statement: row.statement, constraint: true });
    }
    const session = connection.session('READ');
    const tx: Transaction = await session.beginTransaction();
    try {
      progress.phase('reading nodes');
      await streamRows(tx, 'backup/export-nodes', async (row) => {
        const labels = row.labels as string[];
        const props = row.props as Record<string, unknown>;
        if (labels.includes('File') && typeof props.sha256 === 'string') {
          blobPath(options.filesDir, props.sha256); // refuses anything but a digest
          onBlob(props.sha256);
        }
        if (labels.includes('SkeinSchema') && props.id === 'schema') {
          schemaVersion = {
            version: toNumber(props.version ?? 0),
            applied: ((props.applied as unknown[] | null) ?? []).map(toNumber),
          };
        }
        await writers.nodes.write([idOf(row), labels, encodeProperties(props)]);
        progress.count('nodes');
      });
      progress.phase('reading relationships');
      await streamRows(tx, 'backup/export-relationships', async (row) => {
        await writers.relationships.write([
          toNumber(row.from),
          row.type,
          toNumber(row.to),
          encodeProperties(row.props as Record<string, unknown>),
        ]);
        progress.count('relationships');
      });
      progress.phase('reading the event log');
      await streamRows(tx, 'backup/export-events', async (row) => {
        await writers.events.write([
          idOf(row),
          row.labels,
          encodeProperties(row.props as Record<string, unknown>),
        ]);
        progress.count('events');
      });
      await tx.commit();
    } finally {
      await session.close();
    }
  } finally {
    for (const entry of GRAPH_ENTRIES) entries[entry] = await writers[entry].finish();
  }
  return { entries, schemaVersion };
}

function idOf(row: BackupRecord): number {
  return toNumber(row.id);
}

async function blobSizeOrNull(root: string, sha256: string): Promise<number | null> {
  try {
    return (await stat(blobPath(root, sha256))).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
