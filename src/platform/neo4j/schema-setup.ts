// Versioned, idempotent schema set-up. Each file cypher/schema/NNN-name.cypher is one version whose
// statements (separated by semicolons) only use IF NOT EXISTS forms, so applying a version twice,
// or from two instances at once, is harmless. The applied versions are kept on a :SkeinSchema node
// as a set, so a version numbered below one already applied (written on a branch) still runs.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths.js';
import type { Logger } from '../logger.js';
import type { Database } from './database.js';

const SCHEMA_DIR = path.join(PROJECT_ROOT, 'cypher', 'schema');

interface Migration {
  version: number;
  name: string;
  statements: string[];
}

function loadMigrations(): Migration[] {
  return readdirSync(SCHEMA_DIR)
    .filter((file) => /^\d{3}-.+\.cypher$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file,
      statements: readFileSync(path.join(SCHEMA_DIR, file), 'utf8')
        .split(/;\s*(?:\n|$)/)
        .map((statement) => statement.replace(/^\s*\/\/.*$/gm, '').trim())
        .filter((statement) => statement.length > 0),
    }));
}

/** The newest schema version this code knows: a store at a higher one was written by a newer Skein. */
export function latestSchemaVersion(): number {
  return Math.max(0, ...loadMigrations().map((migration) => migration.version));
}

/** A store written by a newer Skein: this code refuses it before it writes anything. */
export class StoreTooNewError extends Error {
  constructor(storeVersion: number) {
    super(
      `This store was written by a newer Skein (schema version ${storeVersion}; this code knows up to ` +
        `${latestSchemaVersion()}). It was left untouched. Run that newer version, or restore a backup ` +
        'taken before the upgrade (README, Upgrading).',
    );
  }
}

export async function applySchema(db: Database, log: Logger): Promise<number> {
  const rows = await db.runText(
    'OPTIONAL MATCH (s:SkeinSchema {id: "schema"}) RETURN coalesce(s.applied, []) AS applied, s.version AS version',
  );
  const applied = new Set((rows[0]?.applied as number[] | null) ?? []);
  let version = (rows[0]?.version as number | null) ?? 0;
  // Checked before anything is written: an older Skein would run its queries on a shape it does not know.
  if (version > latestSchemaVersion()) throw new StoreTooNewError(version);
  for (const migration of loadMigrations()) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await db.runText(statement);
    applied.add(migration.version);
    version = Math.max(version, migration.version);
    await db.runText('MERGE (s:SkeinSchema {id: "schema"}) SET s.version = $version, s.applied = $applied', {
      version,
      applied: [...applied].sort((a, b) => a - b),
    });
    log.info({ migration: migration.name }, 'applied schema version');
  }
  // New indexes are built in the background; queries must not run before they are online.
  await db.runText('CALL db.awaitIndexes(300)');
  return version;
}
