// The outbox in Neo4j: building payloads for recipients, storing notifications with per-user
// sequence numbers, and reading them back for replay. The only code that runs the events Cypher.
import neo4j from 'neo4j-driver';
import type { Database, Tx } from '../../platform/neo4j/database.js';
import type { EventMessage, EventType, NotificationEvent, StoredNotification } from './notification-event.js';

export interface PayloadRequest {
  key: number;
  uid: string;
  type: EventType;
  message_ids: string[];
}

export interface BuiltPayload {
  key: number;
  messages: EventMessage[];
  context: EventMessage[];
}

export async function buildPayloads(tx: Tx, items: PayloadRequest[]): Promise<BuiltPayload[]> {
  if (items.length === 0) return [];
  const rows = await tx.run('events/build-payloads', { items });
  return rows.map((row) => ({
    key: row.key as number,
    messages: row.messages as EventMessage[],
    context: row.context as EventMessage[],
  }));
}

export interface NotificationRow {
  id: string;
  uid: string;
  type: EventType;
  payload: string;
  created_at: string;
}

/**
 * Stores the rows and answers each id with its sequence number. Users are locked first, in uid
 * order, so concurrent writers queue instead of deadlocking; a user's rows keep their given order.
 */
export async function insertNotifications(tx: Tx, items: NotificationRow[]): Promise<Map<string, number>> {
  if (items.length === 0) return new Map();
  const byUser = new Map<string, Omit<NotificationRow, 'uid'>[]>();
  for (const { uid, ...item } of items) byUser.set(uid, [...(byUser.get(uid) ?? []), item]);
  const uids = [...byUser.keys()].sort();
  await tx.run('events/lock-recipients', { uids });
  const rows = await tx.run('events/record-notifications', {
    users: uids.map((uid) => ({ uid, items: byUser.get(uid) })),
  });
  return new Map(rows.map((row) => [row.id as string, row.seq as number]));
}

/** Members of the channels each message was just included in. */
export async function findChannelAudience(
  tx: Tx,
  inclusions: { message_id: string; channel_id: string }[],
): Promise<{ message_id: string; uid: string }[]> {
  if (inclusions.length === 0) return [];
  const rows = await tx.run('events/channel-audience', { inclusions });
  return rows.map((row) => ({ message_id: row.message_id as string, uid: row.uid as string }));
}

export async function resolvePingRefs(
  tx: Tx,
  viewerUid: string,
  wanted: { message_id: string; tags: string[]; uids: string[] },
): Promise<{ visible: boolean; users: Map<string, string> }> {
  const [row] = await tx.run('events/resolve-ping-refs', { viewer_uid: viewerUid, ...wanted });
  const users = (row?.users ?? []) as { key: string; uid: string }[];
  return { visible: row?.visible === true, users: new Map(users.map((u) => [u.key, u.uid])) };
}

/** The subset of uids that can see the message. */
export async function findUsersWhoSee(tx: Tx, messageId: string, uids: string[]): Promise<string[]> {
  if (uids.length === 0) return [];
  const rows = await tx.run('events/find-visible-ping-targets', { message_id: messageId, uids });
  return rows.map((row) => row.uid as string);
}

/** A user's notifications with seq > since, oldest first, at most `limit`. */
export async function listNotificationsSince(
  db: Database,
  uid: string,
  since: number,
  limit: number,
): Promise<StoredNotification[]> {
  const rows = await db.read('events/list-since', { uid, since, limit: neo4j.int(limit) });
  return rows.map((row) => {
    const n = row.notification as {
      id: string;
      uid: string;
      seq: number;
      payload: string;
      created_at: string;
    };
    return {
      id: n.id,
      uid: n.uid,
      seq: n.seq,
      created_at: n.created_at,
      event: JSON.parse(n.payload) as NotificationEvent,
    };
  });
}

/** The seq of the user's newest notification, 0 when there is none. */
export async function latestSeq(db: Database, uid: string): Promise<number> {
  const [row] = await db.read('events/latest-seq', { uid });
  return (row?.seq as number | undefined) ?? 0;
}
