// Webhook deliveries in Neo4j: planned from the event log, claimed under a lease by one dispatcher
// at a time, updated with each attempt's result, and listed for the delivery log. The only code
// that runs the webhooks Cypher.
import neo4j from 'neo4j-driver';
import type { Database, Row } from '../../platform/neo4j/database.js';
import type { LoggedEvent } from '../event-log/event-log.js';
import { toLoggedEvent } from '../event-log/event-log-repository.js';
import type { NotificationEvent } from '../events/notification-event.js';

/**
 * One planning round, under the planner's lock: a pending Delivery for each recipient with an
 * endpoint of the next `limit` numbered events. Answers whether it took a full batch (more may
 * follow).
 */
/**
 * Plans deliveries for up to `limit` events after the planner's head. `heard` is the end of the
 * latest round this instance heard on the bus: that round's numbering had committed before it was
 * published, so its events are readable even before the sequencer settles the head.
 */
export async function planDeliveries(db: Database, limit: number, heard = 0): Promise<{ full: boolean }> {
  return db.inWrite(async (tx) => {
    await tx.run('webhooks/lock-planner');
    const [row] = await tx.run('webhooks/plan-deliveries', {
      limit: neo4j.int(limit),
      heard: neo4j.int(heard),
    });
    return { full: ((row?.advanced as number | undefined) ?? 0) >= limit };
  });
}

/** A delivery leased to one dispatcher for one attempt. */
export interface ClaimedDelivery {
  webhook_id: string;
  uid: string;
  url: string;
  /** The event to build the body from; null when it was pruned. */
  event: LoggedEvent | null;
  /** Attempts already recorded; this one is number attempts + 1. */
  attempts: number;
  /** The endpoint's current "whsec_" signing secret. */
  secret: string;
  lease_token: string;
  /** Database time of the claim, the attempt's start. */
  claimed_at: string;
}

/**
 * Leases up to `limit` due deliveries to this claimer, in one write transaction: lock, then re-check
 * under the lock (see lock-due.cypher), so two instances never both claim the same attempt.
 */
export async function claimDueDeliveries(
  db: Database,
  claim: { owner: string; leaseToken: string; limit: number; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  if (claim.limit <= 0) return [];
  return db.inWrite(async (tx) => {
    const locked = await tx.run('webhooks/lock-due', { limit: neo4j.int(claim.limit) });
    if (locked.length === 0) return [];
    const rows = await tx.run('webhooks/claim-locked', {
      webhook_ids: locked.map((row) => row.webhook_id as string),
      lease_token: claim.leaseToken,
      owner: claim.owner,
      lease_ms: neo4j.int(claim.leaseMs),
    });
    return rows.map((row) => {
      const d = row.delivery as Omit<ClaimedDelivery, 'secret' | 'lease_token' | 'claimed_at' | 'event'>;
      return {
        ...d,
        event: row.event ? toLoggedEvent(row.event as Row) : null,
        secret: row.secret as string,
        lease_token: claim.leaseToken,
        claimed_at: row.claimed_at as string,
      };
    });
  });
}

export interface AttemptLogEntry {
  attempt: number;
  at: string;
  url: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** Attempts kept per delivery: the schedule has 10, and a resend after a lost lease adds one. */
export const MAX_LOG_ENTRIES = 20;

export interface AttemptRecord {
  webhook_id: string;
  uid: string;
  url: string;
  lease_token: string;
  claimed_at: string;
  state: 'delivered' | 'pending' | 'failed' | 'disabled' | 'dropped';
  status: number | null;
  error: string | null;
  /** For 'pending': how long until the next attempt. */
  delay_ms: number;
  entry: AttemptLogEntry;
}

/**
 * Writes one attempt's result, and for 410 turns the endpoint off, in one transaction. Answers false
 * when this claimer no longer held the lease (it ran out and another claimer took over).
 */
export async function recordAttempt(db: Database, record: AttemptRecord): Promise<boolean> {
  return db.inWrite(async (tx) => {
    const rows = await tx.run('webhooks/record-attempt', {
      webhook_id: record.webhook_id,
      lease_token: record.lease_token,
      state: record.state,
      status: record.status === null ? null : neo4j.int(record.status),
      error: record.error,
      delay_ms: neo4j.int(Math.max(0, Math.round(record.delay_ms))),
      entry: JSON.stringify(record.entry),
      max_log: neo4j.int(MAX_LOG_ENTRIES),
    });
    if (rows.length === 0) return false;
    if (record.state === 'disabled') {
      await tx.run('webhooks/disable-endpoint', {
        uid: record.uid,
        url: record.url,
        attempt_started_at: record.claimed_at,
      });
    }
    return true;
  });
}

export interface DeliveryRecord {
  webhook_id: string;
  type: NotificationEvent['type'];
  url: string;
  state: 'pending' | 'delivered' | 'failed' | 'disabled' | 'dropped';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  log: AttemptLogEntry[];
}

/** A user's deliveries, newest first, each with its event; `has_more` from reading one past the page. */
export async function listDeliveries(
  db: Database,
  uid: string,
  skip: number,
  limit: number,
): Promise<{ deliveries: { record: DeliveryRecord; event: LoggedEvent | null }[]; has_more: boolean }> {
  const rows = await db.read('webhooks/list-deliveries', {
    uid,
    skip: neo4j.int(skip),
    limit: neo4j.int(limit + 1),
  });
  const deliveries = rows.slice(0, limit).map((row) => {
    const { log, ...rest } = row.delivery as Omit<DeliveryRecord, 'log'> & { log: string[] | null };
    return {
      record: { ...rest, log: (log ?? []).map((entry) => JSON.parse(entry) as AttemptLogEntry) },
      event: row.event ? toLoggedEvent(row.event as Row) : null,
    };
  });
  return { deliveries, has_more: rows.length > limit };
}

/** Deliveries pending (due now or waiting for a retry). */
export async function countPendingDeliveries(db: Database): Promise<number> {
  const [row] = await db.read('webhooks/count-pending');
  return (row?.pending as number | undefined) ?? 0;
}
