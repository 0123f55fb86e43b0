// Webhook deliveries in Neo4j: planned from the event log, claimed under a lease by one dispatcher
// at a time, updated with each attempt's result, listed for the delivery log and queued again by
// hand; and the endpoint's signing secrets, rotated. The only code that runs the webhooks Cypher.
import neo4j from 'neo4j-driver';
import type { Database, Row } from '../../platform/neo4j/database.js';
import type { LoggedEvent } from '../event-log/event-log.js';
import type { PrincipalRecord } from '../identity/identity-repository.js';
import { toLoggedEvent } from '../event-log/event-log-repository.js';
import type { NotificationEvent } from '../events/notification-event.js';

/**
 * One planning round, under the planner's lock (one auto-commit statement): a pending Delivery for
 * each recipient with an endpoint of up to `limit` numbered events after the planner's head. `heard`
 * is the end of the latest round this instance heard on the bus: that round's numbering had
 * committed before it was published, so its events are readable even before the sequencer settles
 * the head. A round not worth its write (planning-due.cypher) takes no lock and plans nothing.
 * Answers how many deliveries it planned, and whether it took a full batch (more may follow).
 */
export async function planDeliveries(
  db: Database,
  limit: number,
  heard = 0,
): Promise<{ planned: number; full: boolean }> {
  const [row] = await db.write('webhooks/plan-deliveries', {
    limit: neo4j.int(limit),
    heard: neo4j.int(heard),
  });
  return {
    planned: (row?.planned as number | undefined) ?? 0,
    full: ((row?.advanced as number | undefined) ?? 0) >= limit,
  };
}

/** Whether there is planning to catch up on, and deliveries due to claim (find-work.cypher). */
export async function findDispatcherWork(
  db: Database,
  planBatch: number,
  onlyUids?: readonly string[],
): Promise<{ behind: boolean; due: boolean }> {
  const [row] = await db.read('webhooks/find-work', {
    limit: neo4j.int(planBatch),
    only_uids: onlyUids ? [...onlyUids] : null,
  });
  return { behind: row?.behind === true, due: row?.due === true };
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
  /** The secret a rotation replaced, while its overlap lasts: it signs beside the current one. */
  previous_secret: string | null;
  /** Queued again by hand (redeliver): this is one attempt, with no retry schedule after it. */
  redelivery: boolean;
  /**
   * Set when the endpoint asks for the messages' contexts (include_context): the recipient's grant
   * now, to read them as the recipient. Null otherwise.
   */
  recipient: PrincipalRecord | null;
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
  claim: {
    owner: string;
    leaseToken: string;
    limit: number;
    leaseMs: number;
    /** Claim only these users' deliveries (tests sharing one database); absent, every user's. */
    onlyUids?: readonly string[];
  },
): Promise<ClaimedDelivery[]> {
  if (claim.limit <= 0) return [];
  const onlyUids = claim.onlyUids ? [...claim.onlyUids] : null;
  return db.inWrite(async (tx) => {
    const locked = await tx.run('webhooks/lock-due', { limit: neo4j.int(claim.limit), only_uids: onlyUids });
    if (locked.length === 0) return [];
    const rows = await tx.run('webhooks/claim-locked', {
      only_uids: onlyUids,
      webhook_ids: locked.map((row) => row.webhook_id as string),
      lease_token: claim.leaseToken,
      owner: claim.owner,
      lease_ms: neo4j.int(claim.leaseMs),
    });
    return rows.map((row) => {
      const d = row.delivery as Omit<
        ClaimedDelivery,
        'secret' | 'previous_secret' | 'lease_token' | 'claimed_at' | 'event' | 'recipient'
      >;
      return {
        ...d,
        event: row.event ? toLoggedEvent(row.event as Row) : null,
        recipient: (row.recipient as PrincipalRecord | null) ?? null,
        secret: row.secret as string,
        previous_secret: (row.previous_secret as string | null) ?? null,
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
  const deliveries = rows.slice(0, limit).map(toDeliveryWithEvent);
  return { deliveries, has_more: rows.length > limit };
}

/** A delivery as the log shows it, with its event (to build the body from). */
export interface DeliveryWithEvent {
  record: DeliveryRecord;
  event: LoggedEvent | null;
}

function toDeliveryWithEvent(row: Row): DeliveryWithEvent {
  const { log, ...rest } = row.delivery as Omit<DeliveryRecord, 'log'> & { log: string[] | null };
  return {
    record: { ...rest, log: (log ?? []).map((entry) => JSON.parse(entry) as AttemptLogEntry) },
    event: row.event ? toLoggedEvent(row.event as Row) : null,
  };
}

export type RedeliveryResult =
  | { result: 'queued'; delivery: DeliveryWithEvent }
  | { result: 'not_found' }
  | { result: 'endpoint_disabled' }
  | { result: 'in_progress' }
  | { result: 'not_redeliverable'; state: 'pending' | 'delivered' };

/**
 * Queues one delivery of the user again, due at once, if it ended without arriving and the user's
 * endpoint is on; in one transaction that locks the delivery first (lock-delivery.cypher), so an
 * attempt in progress and a redelivery never overlap.
 */
export async function queueRedelivery(
  db: Database,
  uid: string,
  webhookId: string,
): Promise<RedeliveryResult> {
  return db.inWrite(async (tx): Promise<RedeliveryResult> => {
    const locked = await tx.run('webhooks/lock-delivery', { uid, webhook_id: webhookId });
    if (locked.length === 0) return { result: 'not_found' };
    const [found] = await tx.run('webhooks/find-redelivery', { webhook_id: webhookId });
    const state = found!.state as DeliveryRecord['state'];
    if (state === 'pending' || state === 'delivered') return { result: 'not_redeliverable', state };
    if (found!.leased === true) return { result: 'in_progress' };
    if (found!.endpoint_enabled !== true) return { result: 'endpoint_disabled' };
    const [row] = await tx.run('webhooks/queue-redelivery', { webhook_id: webhookId });
    return { result: 'queued', delivery: toDeliveryWithEvent(row!) };
  });
}

/**
 * Makes `secret` the user's endpoint signing secret; the one it replaces keeps signing for
 * `overlapSeconds` (0: not at all). Answers when the replaced one stops signing, or why nothing
 * changed: no verified endpoint, or one turned off by 410.
 */
export async function rotateEndpointSecret(
  db: Database,
  uid: string,
  secret: string,
  overlapSeconds: number,
): Promise<
  { result: 'rotated'; previous_expires_at: string } | { result: 'no_endpoint' } | { result: 'disabled' }
> {
  return db.inWrite(async (tx) => {
    const [locked] = await tx.run('webhooks/lock-endpoint', { uid });
    if (!locked) return { result: 'no_endpoint' } as const;
    if (locked.enabled !== true) return { result: 'disabled' } as const;
    const [row] = await tx.run('webhooks/rotate-secret', {
      uid,
      secret,
      overlap_seconds: neo4j.int(overlapSeconds),
    });
    return { result: 'rotated', previous_expires_at: row!.previous_expires_at as string } as const;
  });
}

/**
 * Sets the options of the user's verified endpoint (set-endpoint-options.cypher); null when the
 * user has none.
 */
export async function setEndpointOptions(
  db: Database,
  uid: string,
  options: { include_context: boolean },
): Promise<{ url: string; include_context: boolean; enabled: boolean } | null> {
  const [row] = await db.write('webhooks/set-endpoint-options', {
    uid,
    include_context: options.include_context,
  });
  if (!row) return null;
  return {
    url: row.url as string,
    include_context: row.include_context as boolean,
    enabled: row.enabled as boolean,
  };
}

/** Deliveries pending (due now or waiting for a retry). */
export async function countPendingDeliveries(db: Database): Promise<number> {
  const [row] = await db.read('webhooks/count-pending');
  return (row?.pending as number | undefined) ?? 0;
}
