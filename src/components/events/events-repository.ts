// Events as recipients see them: building what an event shows one user (with the visibility rule),
// and resolving whom a ping names. The only code that runs the events Cypher.
import type { Database, Tx } from '../../platform/neo4j/database.js';
import type { EventMessage } from './notification-event.js';

export interface PayloadRequest {
  key: number;
  uid: string;
  message_ids: string[];
  /** Whether the user's own messages are shown (a ping, an update), or left out (news of others). */
  include_own: boolean;
  /** Whether up to 10 visible ancestors of the first shown message come along. */
  with_context: boolean;
}

export interface BuiltPayload {
  key: number;
  messages: EventMessage[];
  context: EventMessage[];
}

/** Requests whose user can see none of the messages any more come back with no messages. */
export async function buildPayloads(db: Database, items: PayloadRequest[]): Promise<BuiltPayload[]> {
  if (items.length === 0) return [];
  const rows = await db.read('events/build-payloads', { items });
  return rows.map((row) => ({
    key: row.key as number,
    messages: row.messages as EventMessage[],
    context: row.context as EventMessage[],
  }));
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

/** The channels the user belongs to now. */
export async function listMemberships(db: Database, uid: string): Promise<string[]> {
  const rows = await db.read('events/list-memberships', { uid });
  return rows.map((row) => row.channel_id as string);
}
