// The backup archive: one tar file, its first entry `manifest.json` (what it is, the schema version
// of the store it came from, and the SHA-256 of each graph entry), then the graph as gzipped NDJSON
// (graph/*.ndjson.gz) and the uploaded files under their content address (files/<2 hex>/<62 hex>,
// as in the file store). The tar itself is not compressed: the graph entries are, and uploads mostly
// are already. Reading one back checks everything before anything is used: a foreign file, a wrong
// entry, a checksum or a count that does not match is refused with the reason.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { Parser, create as createTar, type ReadEntry } from 'tar';
import { z } from 'zod';
import { decodeProperties, type Json } from './graph-values.js';

export const ARCHIVE_FORMAT = 'skein-backup';
export const ARCHIVE_FORMAT_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';

/** The graph's entries, in the order a restore loads them. */
export const GRAPH_ENTRIES = ['schema', 'nodes', 'relationships', 'events'] as const;
export type GraphEntry = (typeof GRAPH_ENTRIES)[number];

export function graphEntryPath(entry: GraphEntry): string {
  return `graph/${entry}.ndjson.gz`;
}

const EntrySummary = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int(),
  rows: z.number().int(),
});

export const Manifest = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  format_version: z.number().int(),
  created_at: z.string(),
  skein_version: z.string(),
  /** The schema version of the store it came from, and the versions applied to it. */
  schema: z.object({ version: z.number().int(), applied: z.array(z.number().int()) }),
  /** embedded, or the NEO4J_URI it was read from (no credentials). */
  source: z.string(),
  graph: z.object({
    schema: EntrySummary,
    nodes: EntrySummary,
    relationships: EntrySummary,
    events: EntrySummary,
  }),
  files: z.object({ count: z.number().int(), bytes: z.number().int() }),
  /** How long reading the store took (the files are packed after the manifest is written). */
  took_ms: z.number().int(),
});
export type Manifest = z.infer<typeof Manifest>;
export type EntrySummary = z.infer<typeof EntrySummary>;

/** A backup or restore that stops with a reason for the operator (printed without a stack). */
export class BackupRefusal extends Error {}

/** A refusal of the archive: it is not a Skein backup, or not whole. Nothing was written. */
export class ArchiveError extends BackupRefusal {}

/** Writes rows as gzipped NDJSON, hashing the compressed bytes as they go. */
export class NdjsonWriter {
  private readonly gzip = createGzip({ level: 3 });
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private rows = 0;
  private readonly done: Promise<void>;

  constructor(file: string) {
    const measure = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        callback(null, chunk);
      },
    });
    this.done = pipeline(this.gzip, measure, createWriteStream(file, { mode: 0o600 }));
  }

  /** Resolves once the row is taken; waits when the file falls behind. */
  async write(row: unknown): Promise<void> {
    this.rows++;
    if (!this.gzip.write(`${JSON.stringify(row)}\n`)) {
      await new Promise<void>((resolve) => this.gzip.once('drain', resolve));
    }
  }

  async finish(): Promise<EntrySummary> {
    this.gzip.end();
    await this.done;
    return { sha256: this.hash.digest('hex'), bytes: this.bytes, rows: this.rows };
  }
}

/**
 * Packs the staging folder's manifest and graph, and the listed blobs of the file store, into
 * `output` (mode 600: it holds what the store holds, credentials' hashes and webhook secrets).
 */
export async function packArchive(
  staging: string,
  filesDir: string,
  blobs: string[],
  output: string,
): Promise<void> {
  // The blobs are packed through a link to the file store, under the archive's own names.
  await symlink(filesDir, path.join(staging, 'files'), 'dir');
  const entries = [
    MANIFEST_ENTRY,
    ...GRAPH_ENTRIES.map(graphEntryPath),
    ...blobs.map((sha256) => `files/${sha256.slice(0, 2)}/${sha256.slice(2)}`),
  ];
  const tar = createTar({ cwd: staging, follow: true, portable: true, noDirRecurse: true }, entries);
  await pipeline(tar as unknown as Readable, createWriteStream(output, { mode: 0o600, flags: 'wx' }));
}

const BLOB_ENTRY = /^files\/([0-9a-f]{2})\/([0-9a-f]{62})$/;
const MANIFEST_MAX_BYTES = 1024 * 1024;

export interface Unpacked {
  manifest: Manifest;
  /** Where each graph entry was written. */
  graph: Record<GraphEntry, string>;
  /** The folder holding the blobs, by content address. */
  filesDir: string;
}

/**
 * Reads `archive` into `staging` (an empty folder beside the target), checking it as it goes: the
 * first entry must be a Skein manifest, every entry one the format has, every graph entry's SHA-256
 * and every blob's content what the manifest and its name say, and nothing missing. Throws an
 * ArchiveError naming the first fault; the caller then removes `staging`.
 */
export async function unpackArchive(archive: string, staging: string): Promise<Unpacked> {
  let manifest: Manifest | undefined;
  let first = true;
  let failure: ArchiveError | undefined;
  const seen = new Map<string, { sha256: string; bytes: number }>();
  const names = new Set<string>();
  let blobs = 0;
  let blobBytes = 0;
  const pending: Promise<void>[] = [];
  const input = createReadStream(archive);
  const fail = (message: string) => {
    failure ??= new ArchiveError(message);
    input.destroy(failure);
  };

  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      if (failure) return entry.resume();
      const name = entry.path;
      if (first && name !== MANIFEST_ENTRY) {
        fail(
          `${archive} is not a Skein backup: it does not start with ${MANIFEST_ENTRY} (found ${JSON.stringify(name)})`,
        );
        return entry.resume();
      }
      if (entry.type === 'Directory') return entry.resume();
      if (name === MANIFEST_ENTRY) {
        if (!first) {
          fail(`${archive} is damaged: it holds a second ${MANIFEST_ENTRY}`);
          return entry.resume();
        }
        first = false;
        pending.push(
          readManifest(entry).then(
            (read) => void (manifest = read),
            (error: Error) => fail(error.message),
          ),
        );
        return;
      }
      const graphEntry = GRAPH_ENTRIES.find((candidate) => graphEntryPath(candidate) === name);
      const blob = BLOB_ENTRY.exec(name);
      if (entry.type !== 'File' || (!graphEntry && !blob)) {
        fail(`${archive} is damaged or not a Skein backup: unexpected entry ${JSON.stringify(name)}`);
        return entry.resume();
      }
      // A second entry of a name would replace the first's staged bytes after they were checked.
      if (names.has(name)) {
        fail(`${archive} is damaged or not a Skein backup: it holds ${JSON.stringify(name)} twice`);
        return entry.resume();
      }
      names.add(name);
      // Only names checked against the patterns above become paths.
      const address = blob ? `${blob[1]}${blob[2]}` : undefined;
      const target = path.join(
        staging,
        graphEntry ? graphEntryPath(graphEntry) : `files/${blob![1]}/${blob![2]}`,
      );
      pending.push(
        saveEntry(entry, target).then(
          ({ sha256, bytes }) => {
            if (address) {
              if (sha256 !== address)
                fail(`${archive} is damaged: the file ${name} does not match its checksum`);
              blobs++;
              blobBytes += bytes;
            } else seen.set(name, { sha256, bytes });
          },
          (error: Error) => fail(`${archive} could not be read: ${error.message}`),
        ),
      );
    },
  });
  parser.on('warn', (code: string, message: string | Error) =>
    fail(`${archive} is damaged or not a tar archive (${code}: ${String(message)})`),
  );
  try {
    await pipeline(input, parser as unknown as Writable);
  } catch (error) {
    if (failure) throw failure;
    throw new ArchiveError(`${archive} is damaged or not a tar archive: ${(error as Error).message}`);
  }
  await Promise.all(pending);
  if (failure) throw failure;
  if (!manifest) throw new ArchiveError(`${archive} is not a Skein backup: it holds no ${MANIFEST_ENTRY}`);
  for (const entry of GRAPH_ENTRIES) {
    const expected = manifest.graph[entry];
    const found = seen.get(graphEntryPath(entry));
    if (!found)
      throw new ArchiveError(`${archive} is damaged: ${graphEntryPath(entry)} is missing (cut short?)`);
    if (found.sha256 !== expected.sha256 || found.bytes !== expected.bytes)
      throw new ArchiveError(`${archive} is damaged: ${graphEntryPath(entry)} does not match its checksum`);
  }
  if (blobs !== manifest.files.count || blobBytes !== manifest.files.bytes)
    throw new ArchiveError(
      `${archive} is damaged: it holds ${blobs} uploaded files (${blobBytes} bytes), its manifest says ${manifest.files.count} (${manifest.files.bytes} bytes)`,
    );
  const graph = Object.fromEntries(
    GRAPH_ENTRIES.map((entry) => [entry, path.join(staging, graphEntryPath(entry))]),
  ) as Record<GraphEntry, string>;
  // Every row is read and decoded once before the restore writes anything: a row it could not write
  // would otherwise stop it halfway.
  for (const entry of GRAPH_ENTRIES) {
    let rows = 0;
    try {
      const read = graphRows(graph[entry], entry);
      while (!(await read.next()).done) rows++;
    } catch (error) {
      throw new ArchiveError(`${archive} is damaged: ${(error as Error).message}`);
    }
    if (rows !== manifest.graph[entry].rows)
      throw new ArchiveError(
        `${archive} is damaged: ${graphEntryPath(entry)} holds ${rows} rows, its manifest says ${manifest.graph[entry].rows}`,
      );
  }
  return {
    manifest,
    graph,
    filesDir: path.join(staging, 'files'),
  };
}

async function readManifest(entry: ReadEntry): Promise<Manifest> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MANIFEST_MAX_BYTES) throw new ArchiveError('not a Skein backup: its manifest is too large');
    chunks.push(chunk);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ArchiveError('not a Skein backup: its manifest is not JSON');
  }
  const format = (json as { format?: unknown } | null)?.format;
  if (format !== ARCHIVE_FORMAT)
    throw new ArchiveError(`not a Skein backup: its manifest names the format ${JSON.stringify(format)}`);
  const parsed = Manifest.safeParse(json);
  if (!parsed.success)
    throw new ArchiveError(`not a Skein backup this version can read: ${parsed.error.issues[0]?.message}`);
  if (parsed.data.format_version > ARCHIVE_FORMAT_VERSION)
    throw new ArchiveError(
      `made by a newer Skein (backup format ${parsed.data.format_version}; this one reads up to ${ARCHIVE_FORMAT_VERSION}): restore it with that version or a later one`,
    );
  return parsed.data;
}

async function saveEntry(entry: ReadEntry, target: string): Promise<{ sha256: string; bytes: number }> {
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  const hash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  await pipeline(entry as unknown as Readable, measure, createWriteStream(target, { mode: 0o600 }));
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * The longest line a graph entry may hold. A line is one node or relationship with its properties,
 * held whole while it is decoded: far longer than any the service writes, short enough that a crafted
 * archive cannot exhaust memory with one endless line.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** What a schema statement of an archive may be: an index or constraint made again, nothing else. */
const SCHEMA_STATEMENT =
  /^CREATE (CONSTRAINT|(RANGE |TEXT |POINT |FULLTEXT |VECTOR )?INDEX) `[^`]+` (FOR|ON) /;

export interface SchemaRow {
  statement: string;
}
export interface NodeRow {
  /** The node's key within the archive. */
  id: number;
  labels: string[];
  props: Record<string, unknown>;
}
export interface RelationshipRow {
  from: number;
  type: string;
  to: number;
  props: Record<string, unknown>;
}
export interface GraphRows {
  schema: SchemaRow;
  nodes: NodeRow;
  relationships: RelationshipRow;
  events: NodeRow;
}

/**
 * The rows of a staged graph entry, each checked and its properties decoded into driver values.
 * Throws an Error naming the entry and line of the first row that is not one a backup writes.
 */
export async function* graphRows<E extends GraphEntry>(file: string, entry: E): AsyncGenerator<GraphRows[E]> {
  const name = graphEntryPath(entry);
  const gunzip = createGunzip();
  const input = createReadStream(file);
  input.on('error', (error) => gunzip.destroy(error));
  let number = 0;
  for await (const line of splitLines(input.pipe(gunzip), MAX_LINE_BYTES, name)) {
    number++;
    if (line.length === 0) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`line ${number} of ${name} is not JSON`);
    }
    let row: GraphRows[E];
    try {
      row = parseRow(entry, json) as GraphRows[E];
    } catch (error) {
      throw new Error(`line ${number} of ${name} is not a row a backup writes: ${(error as Error).message}`, {
        cause: error,
      });
    }
    yield row;
  }
}

/** The lines of a stream, refusing one longer than `maxBytes` before it is held whole. */
async function* splitLines(
  input: AsyncIterable<Buffer>,
  maxBytes: number,
  name: string,
): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let pending = 0;
  const tooLong = () =>
    new Error(`${name} holds a line longer than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
  for await (const chunk of input) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (pending + end - start > maxBytes) throw tooLong();
      parts.push(chunk.subarray(start, end));
      yield Buffer.concat(parts).toString('utf8');
      parts = [];
      pending = 0;
      start = end + 1;
    }
    pending += chunk.length - start;
    if (pending > maxBytes) throw tooLong();
    if (start < chunk.length) parts.push(chunk.subarray(start));
  }
  if (pending > 0) yield Buffer.concat(parts).toString('utf8');
}

function parseRow(entry: GraphEntry, json: unknown): SchemaRow | NodeRow | RelationshipRow {
  if (entry === 'schema') {
    const statement = (json as { statement?: unknown } | null)?.statement;
    if (typeof statement !== 'string' || !SCHEMA_STATEMENT.test(statement))
      throw new Error(`a schema statement a backup never writes: ${JSON.stringify(statement).slice(0, 80)}`);
    return { statement };
  }
  if (!Array.isArray(json)) throw new Error('not a list');
  if (entry === 'relationships') {
    const [from, type, to, props] = json as unknown[];
    if (json.length !== 4 || typeof type !== 'string' || type.length === 0)
      throw new Error('not [from, type, to, properties]');
    return { from: archiveId(from), type, to: archiveId(to), props: properties(props) };
  }
  const [id, labels, props] = json as unknown[];
  if (
    json.length !== 3 ||
    !Array.isArray(labels) ||
    labels.length === 0 ||
    !labels.every((label) => typeof label === 'string' && label.length > 0)
  )
    throw new Error('not [id, labels, properties]');
  return { id: archiveId(id), labels: labels as string[], props: properties(props) };
}

function archiveId(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new Error('an id that is not an integer');
  return value;
}

function properties(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('properties that are not a map');
  return decodeProperties(value as Record<string, Json>);
}
