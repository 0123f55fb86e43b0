// Small archives made with the backup's own writer, for the refusal tests: a whole one, and the same
// damaged, foreign or from a newer Skein, with rows a backup never writes, or packed again with
// entries it never makes. The graph is a schema node, two users, a file, an edge and the log.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { create as createTar, extract } from 'tar';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  GRAPH_ENTRIES,
  MANIFEST_ENTRY,
  NdjsonWriter,
  graphEntryPath,
  packArchive,
  type Manifest,
} from '../../src/components/backup/backup-archive.js';
import { latestSchemaVersion } from '../../src/platform/neo4j/schema-setup.js';

export const FIXTURE_FILE = 'bytes of an uploaded file\n';

export type GraphRowsOf = Record<(typeof GRAPH_ENTRIES)[number], unknown[]>;

const RAW = Symbol('raw line');
/** A line written into a graph entry as it is, not as JSON: what no backup writes. */
export function rawLine(text: string): unknown {
  return { [RAW]: text };
}

export interface ArchiveOptions {
  /** Changes the rows before they are written (rawLine for a line that is not JSON). */
  rows?: (rows: GraphRowsOf) => void;
  /** The uploaded file's bytes (its File node follows). */
  file?: string;
}

export async function writeArchive(
  dir: string,
  name: string,
  change: (manifest: Manifest) => void = () => undefined,
  options: ArchiveOptions = {},
): Promise<string> {
  const staging = mkdtempSync(path.join(dir, 'stage-'));
  const files = mkdtempSync(path.join(dir, 'files-'));
  const fileBytes = options.file ?? FIXTURE_FILE;
  const sha256 = createHash('sha256').update(fileBytes).digest('hex');
  mkdirSync(path.join(files, sha256.slice(0, 2)));
  writeFileSync(path.join(files, sha256.slice(0, 2), sha256.slice(2)), fileBytes);
  mkdirSync(path.join(staging, 'graph'));
  const version = latestSchemaVersion();
  const rows: GraphRowsOf = {
    schema: [],
    nodes: [
      [
        1,
        ['SkeinSchema'],
        { id: 'schema', version: { $i: String(version) }, applied: [{ $i: String(version) }] },
      ],
      [
        2,
        ['User'],
        {
          uid: 'aa000001',
          user_tag: 'restored-one',
          created_at: { $dt: [2026, 1, 2, 3, 4, 5, 6000000, 0, null] },
        },
      ],
      [3, ['User'], { uid: 'aa000002', user_tag: 'restored-two', score: 1.5 }],
      [4, ['File'], { file_id: 'ff000001', sha256, size: { $i: String(fileBytes.length) } }],
    ],
    relationships: [[2, 'MANAGES', 3, { since: { $dt: [2026, 1, 2, 3, 4, 5, 0, 0, null] } }]],
    events: [[5, ['EventLog'], { id: 'log', head: { $i: '0' }, settled: { $i: '0' } }]],
  };
  options.rows?.(rows);
  const graph = {} as Manifest['graph'];
  for (const entry of GRAPH_ENTRIES) {
    const file = path.join(staging, graphEntryPath(entry));
    if (rows[entry].some((row) => typeof row === 'object' && row !== null && RAW in row)) {
      // Lines as given, with the checksum and count the manifest would have for them.
      const lines = rows[entry].map((row) =>
        typeof row === 'object' && row !== null && RAW in row
          ? (row as { [RAW]: string })[RAW]
          : JSON.stringify(row),
      );
      const bytes = gzipSync(`${lines.join('\n')}\n`);
      writeFileSync(file, bytes);
      const sha = createHash('sha256').update(bytes).digest('hex');
      graph[entry] = { sha256: sha, bytes: bytes.length, rows: lines.length };
      continue;
    }
    const writer = new NdjsonWriter(file);
    for (const row of rows[entry]) await writer.write(row);
    graph[entry] = await writer.finish();
  }
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    format_version: ARCHIVE_FORMAT_VERSION,
    created_at: new Date().toISOString(),
    skein_version: 'test',
    schema: { version, applied: [version] },
    source: 'test',
    graph,
    files: { count: 1, bytes: fileBytes.length },
    took_ms: 0,
  };
  change(manifest);
  writeFileSync(path.join(staging, MANIFEST_ENTRY), JSON.stringify(manifest));
  const output = path.join(dir, name);
  await packArchive(staging, files, [sha256], output);
  rmSync(staging, { recursive: true, force: true });
  rmSync(files, { recursive: true, force: true });
  return output;
}

/** A copy of `archive` with `count` bytes changed in the middle of its largest graph entry's data. */
export function damagedCopy(archive: string, output: string): string {
  const bytes = readFileSync(archive);
  // The nodes entry's data starts after its 512-byte header; the manifest and schema come first.
  const at = bytes.indexOf(Buffer.from('graph/nodes.ndjson.gz')) + 512 + 40;
  bytes[at] = bytes[at]! ^ 0xff;
  writeFileSync(output, bytes);
  return output;
}

export function truncatedCopy(archive: string, output: string): string {
  const bytes = readFileSync(archive);
  writeFileSync(output, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  return output;
}

/** A tar that is not a backup: someone else's files. */
export async function foreignTar(dir: string): Promise<string> {
  const inside = mkdtempSync(path.join(dir, 'foreign-'));
  writeFileSync(path.join(inside, 'notes.txt'), 'not a backup\n');
  const output = path.join(dir, 'foreign.tar');
  await createTar({ cwd: inside, file: output }, ['notes.txt']);
  return output;
}

/**
 * `archive` packed again as `arrange` lists its entries (names relative to a folder the archive was
 * unpacked into, which `arrange` may add to): for tars with entries a backup never writes, such as
 * `../` paths, links and names that come twice. Paths are kept as given.
 */
export async function repackedCopy(
  archive: string,
  output: string,
  arrange: (inner: string) => string[],
): Promise<string> {
  const outer = mkdtempSync(path.join(path.dirname(output), 'repack-'));
  const inner = path.join(outer, 'inner');
  mkdirSync(inner);
  await extract({ file: archive, cwd: inner });
  await createTar(
    { cwd: inner, file: output, preservePaths: true, portable: true, noDirRecurse: true },
    arrange(inner),
  );
  rmSync(outer, { recursive: true, force: true });
  return output;
}

/** The entries `writeArchive` packs, in order. */
export function archiveEntries(inner: string): string[] {
  const blobs: string[] = [];
  for (const prefix of readdirSync(path.join(inner, 'files')))
    for (const name of readdirSync(path.join(inner, 'files', prefix))) blobs.push(`files/${prefix}/${name}`);
  return [MANIFEST_ENTRY, ...GRAPH_ENTRIES.map(graphEntryPath), ...blobs];
}
