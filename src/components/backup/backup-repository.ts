// The only code of backups that runs Cypher (cypher/backup/). It talks to Neo4j through a driver of
// its own, with lossless integers, where the service's Database turns every integer into a float-
// safe number: a backup must write back exactly the types it read (graph-values.ts).
import neo4j, { type Driver, type Session, type Transaction } from 'neo4j-driver';
import { cypher } from '../../platform/neo4j/cypher.js';
import type { Neo4jTarget } from '../../platform/neo4j/database.js';
import { toNumber } from './graph-values.js';

export type BackupRecord = Record<string, unknown>;

export interface GraphConnection {
  driver: Driver;
  session(mode: 'READ' | 'WRITE'): Session;
  close(): Promise<void>;
}

export function connectForBackup(target: Neo4jTarget): GraphConnection {
  const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
    logging: { level: 'error', logger: () => undefined },
    // id() is deprecated (export-nodes.cypher says why it is used): no notification for it.
    notificationFilter: { minimumSeverityLevel: 'OFF' },
    // A restore's batches and a backup's one long read may wait on a loaded machine.
    connectionAcquisitionTimeout: 120_000,
  });
  return {
    driver,
    session: (mode) =>
      driver.session({
        defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
        ...(target.database ? { database: target.database } : {}),
      }),
    close: () => driver.close(),
  };
}

/**
 * Streams one export query's rows to `onRow` (awaited, so a slow writer slows the read down instead
 * of buffering the store in memory), inside the backup's one read transaction.
 */
export async function streamRows(
  tx: Transaction,
  name: string,
  onRow: (row: BackupRecord) => Promise<void> | void,
): Promise<number> {
  let rows = 0;
  for await (const record of tx.run(cypher(name))) {
    await onRow(record.toObject());
    rows++;
  }
  return rows;
}

/** Rows of a query that answers few (the schema's statements, counts), in a transaction of its own. */
export async function readAll(connection: GraphConnection, name: string): Promise<BackupRecord[]> {
  const session = connection.session('READ');
  try {
    const result = await session.run(cypher(name));
    return result.records.map((record) => record.toObject());
  } finally {
    await session.close();
  }
}

/** One write statement in an auto-commit transaction (those with CALL … IN TRANSACTIONS need one). */
export async function runWrite(
  connection: GraphConnection,
  nameOrText: { name: string } | { text: string },
  params: Record<string, unknown> = {},
): Promise<BackupRecord[]> {
  const session = connection.session('WRITE');
  try {
    const text = 'name' in nameOrText ? cypher(nameOrText.name) : nameOrText.text;
    const result = await session.run(text, params);
    return result.records.map((record) => record.toObject());
  } finally {
    await session.close();
  }
}

/** One batch of import rows in one write transaction; answers how many the statement created. */
export async function importBatch(
  connection: GraphConnection,
  name: 'backup/import-nodes' | 'backup/import-relationships',
  rows: unknown[],
): Promise<number> {
  const session = connection.session('WRITE');
  try {
    return await session.executeWrite(async (tx) => {
      const result = await tx.run(cypher(name), { rows });
      return toNumber(result.records[0]?.get('created') ?? 0);
    });
  } finally {
    await session.close();
  }
}
