// The only door to Neo4j. Repositories call read()/write() with a Cypher file name and plain
// parameters, and get plain objects back: Neo4j integers become numbers (the driver is set up
// without lossless integers) and temporal values become ISO 8601 strings with milliseconds.
import neo4j, { type Driver, type Record as Neo4jRecord, type Transaction } from 'neo4j-driver';
import type { Metrics } from '../metrics.js';
import type { CausalBookmarks } from './causal-bookmarks.js';
import { cypher } from './cypher.js';
import { withTransientRetry } from './transient-retry.js';

export type Row = Record<string, unknown>;
export type Params = Record<string, unknown>;

export interface Neo4jTarget {
  uri: string;
  user: string;
  password: string;
  database: string | undefined;
}

/** A unit of work inside one transaction: every statement commits together or not at all. */
export interface Tx {
  run(name: string, params?: Params): Promise<Row[]>;
  /**
   * Says that what this transaction writes can be seen by these users only (a post that is not
   * public: its author, recipients and the members of its channels). The view cache then forgets
   * only their answers, for the statements it trusts such a claim about (view-cache.ts). With
   * newRootsOnly the transaction also says that it only creates messages that start threads and
   * join no channel: no message that existed before it gains an edge.
   */
  onlyVisibleTo(uids: Iterable<string>, options?: { newRootsOnly: boolean }): void;
}

/** One statement a write transaction ran, with the parameters it ran with. */
export interface StatementRun {
  name: string;
  params: Params;
}

/** What a write transaction did, as its commit listeners are told. */
export interface Committed {
  /** The names of the statements it ran. */
  statements: ReadonlySet<string>;
  /**
   * Each statement it ran with its parameters, in order: a listener that must know what a write
   * touched (the session cache: whose credentials) reads it from them.
   */
  runs: readonly StatementRun[];
  /** Whom it said its writes are visible to (Tx.onlyVisibleTo); null when it did not say. */
  visibleTo: ReadonlySet<string> | null;
  /** True when it said so with every visibleTo claim (Tx.onlyVisibleTo's newRootsOnly). */
  newRootsOnly: boolean;
}

/** Told, after a write transaction commits, what it did; the write answers once every listener has finished. */
export type CommitListener = (committed: Committed) => Promise<void>;

/** What commit listeners are told a runText write did (the text has no name). */
const RAW_TEXT: Committed = {
  statements: new Set(['schema/raw-text']),
  runs: [{ name: 'schema/raw-text', params: {} }],
  visibleTo: null,
  newRootsOnly: false,
};

export class Database {
  private metrics: Metrics | undefined;
  private readonly commitListeners: CommitListener[] = [];
  /** Set only with a routing URI and Redis: a request's bookmarks shared across instances. */
  private causal: CausalBookmarks | undefined;
  /** Set only on the Database that rehearse() hands out: every statement runs in it, never committed. */
  private rehearsalTx: Transaction | undefined;

  private constructor(
    readonly driver: Driver,
    private readonly database: string | undefined,
  ) {}

  static connect(target: Neo4jTarget): Database {
    const driver = neo4j.driver(target.uri, neo4j.auth.basic(target.user, target.password), {
      disableLosslessIntegers: true,
      maxConnectionPoolSize: 100,
      connectionAcquisitionTimeout: 20_000,
      logging: { level: 'error', logger: () => undefined },
      // Neo4j sends no notifications: nothing here reads them, and a query naming a relationship
      // type or property the store has not seen yet (a store without channels, without BCC
      // entries) came back with one nested map per mention (36 per page hydrated), which the driver
      // decoded on every run. Off, a page of 50 cost the service 0.7 ms less (2026-11-29). Needs
      // Neo4j 5.7; Skein's Cypher (CALL (x) {}, OPTIONAL CALL) already needs 5.24.
      notificationFilter: { minimumSeverityLevel: 'OFF' },
    });
    return new Database(driver, target.database);
  }

  /** Reports transaction times and open sessions to these metrics from now on. */
  instrument(metrics: Metrics): void {
    this.metrics = metrics;
  }

  /**
   * From now on, every session of a request starts from the bookmarks its credential's earlier
   * writes left on any instance, and every committed write records its own (causal-bookmarks.ts).
   */
  carryBookmarks(causal: CausalBookmarks): void {
    this.causal = causal;
  }

  /** The cross-instance bookmarks, when the deployment carries them (the HTTP layer opens requests). */
  get causalBookmarks(): CausalBookmarks | undefined {
    return this.causal;
  }

  /** Calls `listener` after every committed write transaction (caches drop what it may have changed). */
  onCommit(listener: CommitListener): void {
    this.commitListeners.push(listener);
  }

  async verify(): Promise<void> {
    await this.driver.verifyConnectivity(this.database ? { database: this.database } : {});
  }

  /**
   * Runs one named query as a read, in an auto-commit transaction: one round trip where an explicit
   * transaction takes two (BEGIN and RUN, then COMMIT), which was a fifth of a simple read's time.
   * A read-mode session still routes it to a secondary in a cluster and carries the bookmarks.
   */
  read(name: string, params: Params = {}): Promise<Row[]> {
    return this.autoCommit('READ', name, params);
  }

  /**
   * Runs one named query as a write, in an auto-commit transaction (one round trip, as a read);
   * committed when the answer arrives. Several statements that must commit together go through
   * inWrite.
   */
  async write(name: string, params: Params = {}): Promise<Row[]> {
    const rows = await this.autoCommit('WRITE', name, params);
    const committed: Committed = {
      statements: new Set([name]),
      runs: [{ name, params }],
      visibleTo: null,
      newRootsOnly: false,
    };
    for (const listener of this.commitListeners) await listener(committed);
    return rows;
  }

  /**
   * Runs `work` with a Database whose every statement (read, write, inWrite) runs in one write
   * transaction that is rolled back when `work` ends: the warm-up (components/warm-up) runs the
   * service's own use cases on data that never lands. Nothing is committed, no commit listener is
   * told, and no bookmark is carried.
   */
  async rehearse<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const session = this.session('WRITE');
    const tx = session.beginTransaction();
    const rehearsal = new Database(this.driver, this.database);
    rehearsal.rehearsalTx = tx;
    try {
      return await work(rehearsal);
    } finally {
      if (tx.isOpen()) await tx.rollback().catch(() => undefined);
      await session.close();
    }
  }

  /** A transient failure rolled the statement back: it runs again (transient-retry.ts). */
  private async autoCommit(mode: 'READ' | 'WRITE', name: string, params: Params): Promise<Row[]> {
    if (this.rehearsalTx) return runNamed(this.rehearsalTx, name, params);
    const label = mode === 'READ' ? 'read' : 'write';
    const done = this.observe(label);
    try {
      const rows = await withTransientRetry(
        async () => {
          const session = this.session(mode);
          try {
            const result = await withoutCallSiteStack(() => session.run(cypher(name), params));
            // Before the write answers, so that whatever its client does next, anywhere, follows it.
            if (mode === 'WRITE' && this.causal) await this.causal.written(session.lastBookmarks());
            return result.records.map(toRow);
          } finally {
            await session.close();
          }
        },
        () => this.metrics?.neo4jRetries.inc({ mode: label }),
      );
      done('ok');
      return rows;
    } catch (error) {
      done('error');
      throw namedError(error, name);
    }
  }

  /** Runs several statements in one write transaction (run again on transient errors, as autoCommit). */
  async inWrite<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const rehearsal = this.rehearsalTx;
    if (rehearsal)
      return work({
        run: (name, params = {}) => runNamed(rehearsal, name, params),
        onlyVisibleTo: () => undefined,
      });
    const session = this.session('WRITE');
    const done = this.observe('write');
    const statements = new Set<string>();
    const runs: StatementRun[] = [];
    let visibleTo: Set<string> | null = null;
    let newRootsOnly = true;
    try {
      const result = await withTransientRetry(
        async () => {
          // A retried attempt starts over.
          statements.clear();
          runs.length = 0;
          visibleTo = null;
          newRootsOnly = true;
          const tx = session.beginTransaction();
          try {
            const value = await work({
              run: (name, params = {}) => {
                statements.add(name);
                runs.push({ name, params });
                return runNamed(tx, name, params);
              },
              onlyVisibleTo: (uids, options) => {
                newRootsOnly &&= options?.newRootsOnly === true;
                visibleTo ??= new Set();
                for (const uid of uids) visibleTo.add(uid);
              },
            });
            await tx.commit();
            return value;
          } finally {
            // After a failure (a commit that failed has already ended the transaction).
            if (tx.isOpen()) await tx.rollback().catch(() => undefined);
          }
        },
        () => this.metrics?.neo4jRetries.inc({ mode: 'write' }),
      );
      done('ok');
      if (this.causal) await this.causal.written(session.lastBookmarks());
      const committed: Committed = {
        statements,
        runs,
        visibleTo,
        newRootsOnly: visibleTo !== null && newRootsOnly,
      };
      for (const listener of this.commitListeners) await listener(committed);
      return result;
    } catch (error) {
      done('error');
      throw error;
    } finally {
      await session.close();
    }
  }

  /** Runs raw Cypher text; only for schema set-up, which reads its statements from files itself. */
  async runText(text: string, params: Params = {}): Promise<Row[]> {
    if (this.rehearsalTx) throw new Error('a rehearsal runs no schema text');
    // Auto-commit, so a schema version may batch a data change with CALL { … } IN TRANSACTIONS
    // (which a transaction function refuses).
    const session = this.session('WRITE');
    try {
      const result = await session.run(text, params);
      // A schema version may change data a cache holds (it is told the text has no name).
      for (const listener of this.commitListeners) await listener(RAW_TEXT);
      return result.records.map(toRow);
    } finally {
      await session.close();
    }
  }

  async close(): Promise<void> {
    await this.causal?.close();
    await this.driver.close();
  }

  /** Starts timing a transaction; the answer ends it with its outcome. */
  private observe(mode: 'read' | 'write'): (outcome: 'ok' | 'error') => void {
    const metrics = this.metrics;
    if (!metrics) return () => undefined;
    metrics.neo4jSessionsInUse.inc({ mode });
    const stop = metrics.neo4jTransactions.startTimer({ mode });
    return (outcome) => {
      stop({ outcome });
      metrics.neo4jSessionsInUse.dec({ mode });
    };
  }

  private session(mode: 'READ' | 'WRITE') {
    return this.driver.session({
      // Shared bookmarks: in a cluster a read always sees the writes this process has committed.
      bookmarkManager: this.driver.executeQueryBookmarkManager,
      // And those of the request's credential, from whichever instance wrote them.
      bookmarks: this.causal?.carried(),
      defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE,
      ...(this.database ? { database: this.database } : {}),
    });
  }
}

async function runNamed(tx: Transaction, name: string, params: Params): Promise<Row[]> {
  try {
    const result = await withoutCallSiteStack(() => tx.run(cypher(name), params));
    return result.records.map(toRow);
  } catch (error) {
    throw namedError(error, name);
  }
}

/**
 * Starts a query without the driver's call-site stack: the driver formats a stack trace for every
 * query it starts (to attach to a later error), which was about a tenth of the service's busy time on the
 * post path. The query's name, which namedError puts on any error, says more than that stack.
 */
function withoutCallSiteStack<T>(start: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return start();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The error, marked with the query it came from (logged with it). */
function namedError(error: unknown, name: string): unknown {
  if (error instanceof Error && !('query' in error)) Object.assign(error, { query: name });
  return error;
}

function toRow(record: Neo4jRecord): Row {
  const row: Row = {};
  for (const key of record.keys) row[String(key)] = toPlain(record.get(key));
  return row;
}

/**
 * Whether a statement failed because a node it had matched was deleted by a transaction that held
 * its lock meanwhile: to the caller, the node is missing.
 */
export function isEntityNotFound(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'Neo.ClientError.Statement.EntityNotFound'
  );
}

/**
 * Converts driver values into plain JSON-ready values. Lists and maps the driver decoded are fresh
 * objects that nothing else holds, so they are converted in place: copying them made a second copy
 * of every row (a page read's 50 hydrated rows of nested maps) for the young generation to collect.
 */
export function toPlain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  // Strings, numbers and booleans leave first: most values are one, and the driver's type tests
  // below showed in profiles of page reads while every string went through them.
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = toPlain(value[i]);
    return value;
  }
  // A map as the driver decodes it is a plain object: none of the driver's types below.
  if (Object.getPrototypeOf(value) === Object.prototype) {
    const map = value as Row;
    for (const key in map) map[key] = toPlain(map[key]);
    return map;
  }
  if (neo4j.isDateTime(value)) return value.toStandardDate().toISOString();
  if (neo4j.isDate(value)) return value.toString();
  if (neo4j.isInt(value)) return value.toNumber();
  if ('properties' in value && 'labels' in value)
    return toPlain((value as { properties: unknown }).properties);
  const out: Row = {};
  for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
  return out;
}
