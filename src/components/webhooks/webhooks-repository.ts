// Webhook deliveries in Neo4j: created with their notification, claimed under a lease by one
// dispatcher at a time, updated with each attempt's result, and listed for the delivery log. The
// only code that runs the webhooks Cypher.
import neo4j from 'neo4j-driver';
import type { Database, Tx } from '../../platform/neo4j/database.js';
import type { EventType, NotificationEvent, StoredNotification } from '../events/notification-event.js';

/** The webhook-id of a notification's delivery: the same on every attempt (Standard Webhooks). */
export function webhookIdOf(notificationId: string): string {
  return `msg_${notificationId}`;
}

/**
 * Called by the outbox inside the transaction that records notifications: creates one pending
 * Delivery for each notification whose user has a verified, enabled endpoint contact. The body sent
 * later is exactly JSON.stringify(notification.event).
 */
export async function createDeliveries(tx: Tx, notifications: StoredNotification[]): Promise<void> {
  if (notifications.length === 0) return;
  await tx.run('webhooks/create-deliveries', {
    items: notifications.map((n) => ({
      webhook_id: webhookIdOf(n.id),
      notification_id: n.id,
      uid: n.uid,
      seq: n.seq,
      type: n.event.type,
      payload: JSON.stringify(n.event),
      created_at: n.created_at,
    })),
  });
}

/** A delivery leased to one dispatcher for one attempt. */
export interface ClaimedDelivery {
  webhook_id: string;
  uid: string;
  url: string;
  /** The exact body to send. */
  payload: string;
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
      const d = row.delivery as Omit<ClaimedDelivery, 'secret' | 'lease_token' | 'claimed_at'>;
      return {
        ...d,
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
  state: 'delivered' | 'pending' | 'failed' | 'disabled';
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
  type: EventType;
  url: string;
  state: 'pending' | 'delivered' | 'failed' | 'disabled';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  log: AttemptLogEntry[];
  event: NotificationEvent;
}

/** A user's deliveries, newest first; `has_more` from reading one past the page. */
export async function listDeliveries(
  db: Database,
  uid: string,
  skip: number,
  limit: number,
): Promise<{ deliveries: DeliveryRecord[]; has_more: boolean }> {
  const rows = await db.read('webhooks/list-deliveries', {
    uid,
    skip: neo4j.int(skip),
    limit: neo4j.int(limit + 1),
  });
  const deliveries = rows.slice(0, limit).map((row) => {
    const { payload, log, ...rest } = row.delivery as Omit<DeliveryRecord, 'event' | 'log'> & {
      payload: string;
      log: string[] | null;
    };
    return {
      ...rest,
      log: (log ?? []).map((entry) => JSON.parse(entry) as AttemptLogEntry),
      event: JSON.parse(payload) as NotificationEvent,
    };
  });
  return { deliveries, has_more: rows.length > limit };
}
