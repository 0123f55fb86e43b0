// The backup and restore commands of `npm run admin` (src/admin-cli.ts):
//   backup <file>             one archive of the graph and the uploaded files, taken while the
//                             service runs (or, embedded and stopped, with a Neo4j started for it)
//   restore <file> [--force]  into an empty SKEIN_DATA_DIR (embedded) or an empty NEO4J_URI database,
//                             with the service stopped; --force replaces what the target holds
// They need no AppContext: a backup only reads, and a restore writes into a store no service runs on.
import { readFileSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';
import type { Neo4jTarget } from '../../platform/neo4j/database.js';
import {
  embeddedNeo4jTarget,
  embeddedOptionsOf,
  startEmbeddedNeo4j,
} from '../../platform/neo4j/embedded-neo4j.js';
import { PROJECT_ROOT } from '../../platform/paths.js';
import { connectForBackup, type GraphConnection } from './backup-repository.js';
import { stderrProgress } from './progress.js';
import {
  isEmptyFolder,
  restoreBackup,
  RestoreRefused,
  type RestoreSummary,
  type RestoreTarget,
} from './restore-backup.js';
import { BackupError, formatBytes, takeBackup } from './take-backup.js';

export const BACKUP_USAGE = `  backup <file>                             write one archive of the graph and uploaded files (while the service runs)
  restore <file> [--force]                  restore an archive into an empty data folder or NEO4J_URI database`;

/** A mistake in the command line: the CLI prints it with the usage. */
export class BackupUsageError extends Error {}

export { BackupRefusal } from './backup-archive.js';

export async function runBackupCommand(args: string[], config: Config, log: Logger): Promise<string> {
  const [command, ...rest] = args;
  const force = rest.includes('--force');
  const [file, ...extra] = rest.filter((arg) => arg !== '--force');
  if (!file || extra.length > 0) throw new BackupUsageError(`${command} needs one file name.`);
  if (command === 'backup') {
    if (force) throw new BackupUsageError('backup takes no --force: name a new file.');
    return backup(file, config, log);
  }
  return restore(file, force, config, log);
}

async function backup(file: string, config: Config, log: Logger): Promise<string> {
  const target = await openSource(config, log);
  try {
    const { manifest, tookMs } = await takeBackup({
      connection: target.connection,
      filesDir: config.filesDir,
      output: file,
      source: config.neo4j.uri ? withoutCredentials(config.neo4j.uri) : 'embedded',
      skeinVersion: skeinVersion(),
      progress: stderrProgress('backup'),
    });
    const { graph } = manifest;
    return [
      `Wrote ${path.resolve(file)} in ${(tookMs / 1000).toFixed(1)} s (schema version ${manifest.schema.version}):`,
      `  ${graph.nodes.rows} nodes, ${graph.relationships.rows} relationships, ${graph.events.rows} event log entries, ` +
        `${manifest.files.count} uploaded files (${formatBytes(manifest.files.bytes)})`,
      'It holds password and key hashes and webhook secrets as the store does: keep it as you keep the data folder (mode 600; encrypt copies you send elsewhere).',
    ].join('\n');
  } finally {
    await target.release();
  }
}

async function restore(file: string, force: boolean, config: Config, log: Logger): Promise<string> {
  const embedded = !config.neo4j.uri;
  if (embedded && !force && !(await isEmptyFolder(config.dataDir)))
    throw new RestoreRefused(
      `${config.dataDir} (SKEIN_DATA_DIR) is not empty: restore into a new folder, or pass --force to replace what it holds`,
    );
  // What the embedded Neo4j writes into a data folder that held nothing is the restore's own.
  const ownsDataDir = embedded && (await isEmptyFolder(config.dataDir));
  const dataDirExisted = await stat(config.dataDir).then(
    () => true,
    () => false,
  );
  let summary: RestoreSummary;
  try {
    summary = await restoreBackup({
      archive: file,
      filesDir: config.filesDir,
      stagingParent: path.dirname(embedded ? config.dataDir : config.filesDir),
      force,
      connect: () => (embedded ? startEmbeddedForRestore(config, log) : Promise.resolve(external(config))),
      progress: stderrProgress('restore'),
    });
  } catch (error) {
    // The embedded Neo4j has stopped: a refused restore leaves the data folder as empty as it found it.
    if (ownsDataDir) await emptyFolder(config.dataDir, dataDirExisted);
    throw error;
  }
  return [
    `Restored ${path.resolve(file)} (taken ${summary.manifest.created_at}, schema version ${summary.manifest.schema.version}):`,
    `  ${summary.nodes} nodes, ${summary.relationships} relationships, ${summary.events} event log entries, ${summary.files} uploaded files`,
    ...(summary.leftOut > 0
      ? [
          `  ${summary.leftOut} relationships made while the backup read, to nodes it had already passed, were left out`,
        ]
      : []),
    'Start the service on it (npm start): it applies any schema version the backup lacks.',
  ].join('\n');
}

/** Removes what a folder holds, and the folder itself unless it is to be kept. */
async function emptyFolder(folder: string, keep: boolean): Promise<void> {
  if (!keep) return rm(folder, { recursive: true, force: true });
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) await rm(path.join(folder, name), { recursive: true, force: true });
}

interface Source {
  connection: GraphConnection;
  release(): Promise<void>;
}

/** The running service's Neo4j; embedded and not running, one started for the backup. */
async function openSource(config: Config, log: Logger): Promise<Source> {
  if (config.neo4j.uri) return external(config);
  const running = embeddedNeo4jTarget(config.dataDir, config.neo4j.embeddedPort);
  if (!running)
    throw new BackupError(
      `${config.dataDir} holds no Skein store (no neo4j-password): is SKEIN_DATA_DIR the service's?`,
    );
  const connection = connectForBackup(running);
  if (await answers(connection)) return { connection, release: () => connection.close() };
  await connection.close();
  log.warn('the service is not running: starting its embedded Neo4j for the backup');
  return startEmbeddedForRestore(config, log);
}

async function startEmbeddedForRestore(config: Config, log: Logger): Promise<RestoreTarget> {
  const running = embeddedNeo4jTarget(config.dataDir, config.neo4j.embeddedPort);
  if (running) {
    const probe = connectForBackup(running);
    const inUse = await answers(probe);
    await probe.close();
    if (inUse) throw new RestoreRefused(`a service is running on ${config.dataDir}: stop it first`);
  }
  const neo4j = await startEmbeddedNeo4j(embeddedOptionsOf(config, log));
  const connection = connectForBackup(neo4j.target);
  return {
    connection,
    release: async () => {
      await connection.close();
      await neo4j.stop();
    },
  };
}

function external(config: Config): RestoreTarget {
  const target: Neo4jTarget = {
    uri: config.neo4j.uri!,
    user: config.neo4j.user,
    password: config.neo4j.password ?? '',
    database: config.neo4j.database,
  };
  const connection = connectForBackup(target);
  return { connection, release: () => connection.close() };
}

async function answers(connection: GraphConnection): Promise<boolean> {
  try {
    await connection.driver.verifyConnectivity();
    return true;
  } catch {
    return false;
  }
}

function withoutCredentials(uri: string): string {
  const url = new URL(uri);
  url.username = '';
  url.password = '';
  return url.toString();
}

function skeinVersion(): string {
  return (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
}
