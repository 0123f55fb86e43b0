// The event log in Neo4j: recording events inside a writer's transaction, numbering them after
// commit, and reading them back by position. The only code that runs the event-log Cypher.
import { randomUUID } from 'node:crypto';
import neo4j from 'neo4j-driver';
import type { Database, Row, Tx } from '../../platform/neo4j/database.js';
import type {
  CommittedEvent,
  LoggedEvent,
  MessageChange,
  NewEvent,
  EventType,
  SequencedRound,
} from './event-log.js';
import type { MessageAudience } from './record-events.js';

/** One event as fragments/create-event.cypher stores it. */
export type EventRow = CommittedEvent & {
  uid: string | null;
  skip_uids: string[];
  changes: MessageChange[];
  membership_channel: string | null;
  membership_joined: boolean | null;
};

/** The parameters of fragments/create-event.cypher for one change's events. */
export interface EventRows {
  change_id: string;
  actor_uid: string;
  now: string;
  events: EventRow[];
}

export function eventRows(actorUid: string, events: NewEvent[]): EventRows {
  return {
    change_id: randomUUID(),
    actor_uid: actorUid,
    now: new Date().toISOString(),
    events: events.map((e) => ({
      id: randomUUID(),
      type: e.type,
      uid: e.uid ?? null,
      channel_id: e.channel_id ?? null,
      message_ids: e.message_ids,
      skip_uids: e.skip_uids ?? [],
      changes: e.changes ?? [],
      membership_channel: e.membership?.channel_id ?? null,
      membership_joined: e.membership?.joined ?? null,
    })),
  };
}

/** Creates the change's events, unnumbered; answers how many. */
export async function insertEvents(tx: Tx, rows: EventRows): Promise<number> {
  if (rows.events.length === 0) return 0;
  const [row] = await tx.run('event-log/insert-events', { ...rows });
  return (row?.recorded as number | undefined) ?? 0;
}

/**
 * One sequencer round in one statement: lock the log, number up to `limit` committed pending
 * events after the head. The round is empty (from = to) when nothing was pending.
 */
export async function numberPendingEvents(db: Database, limit: number): Promise<SequencedRound> {
  const [row] = await db.write('event-log/number-pending', { round_limit: neo4j.int(limit) });
  return roundOf(row);
}

/** The round fragments/number-round.cypher answered (its `base` and `numbered`). */
export function roundOf(row: Row | undefined): SequencedRound {
  const from = (row?.base as number | undefined) ?? 0;
  const events = ((row?.numbered as Row[] | undefined) ?? []).map(toLoggedEvent);
  events.sort((a, b) => a.seq - b.seq);
  return { from, to: from + events.length, events };
}

/** Whether committed events wait for a number, or the head waits to be settled. */
export async function hasPendingEvents(db: Database): Promise<boolean> {
  const [row] = await db.read('event-log/has-pending');
  return row?.pending === true;
}

/** Records, under the log's lock, that every event numbered so far is readable. */
export async function settleHead(db: Database): Promise<void> {
  await db.write('event-log/settle-head');
}

/** The last number up to which every event is readable (see read-head.cypher). */
export async function readHead(db: Database): Promise<number> {
  const [row] = await db.read('event-log/read-head');
  return (row?.head as number | undefined) ?? 0;
}

/** Every event numbered after `after` up to `upto`, in order, at most `limit`. */
export async function listEventsInRange(
  db: Database,
  after: number,
  upto: number,
  limit: number,
): Promise<LoggedEvent[]> {
  const rows = await db.read('event-log/list-range', { after, upto, limit: neo4j.int(limit) });
  return rows.map((row) => toLoggedEvent(row.event as Row));
}

/** What `uid` may be handed after `after` up to `upto`, in order, at most `limit`. */
export async function listEventsForUser(
  db: Database,
  uid: string,
  after: number,
  upto: number,
  limit: number,
): Promise<LoggedEvent[]> {
  const rows = await db.read('event-log/list-for-user', { uid, after, upto, limit: neo4j.int(limit) });
  return rows.map((row) => toLoggedEvent(row.event as Row));
}

/** Deletes up to `limit` events older than `before` that webhooks are done with; answers how many. */
export async function pruneEvents(db: Database, before: string, limit: number): Promise<number> {
  const [row] = await db.write('event-log/prune', { before, limit: neo4j.int(limit) });
  return (row?.pruned as number | undefined) ?? 0;
}

/** Deletes up to `limit` notification rows of the first version; answers how many. */
export async function pruneLegacyNotifications(db: Database, limit: number): Promise<number> {
  const [row] = await db.write('event-log/prune-legacy', { limit: neo4j.int(limit) });
  return (row?.pruned as number | undefined) ?? 0;
}

export function toLoggedEvent(row: Row): LoggedEvent {
  const membershipChannel = row.membership_channel as string | null | undefined;
  return {
    id: row.id as string,
    change_id: (row.change_id as string | null | undefined) ?? (row.id as string),
    seq: row.seq as number,
    type: row.type as EventType,
    uid: (row.uid as string | null | undefined) ?? null,
    channel_id: (row.channel_id as string | null | undefined) ?? null,
    message_ids: (row.message_ids as string[] | null | undefined) ?? [],
    skip_uids: (row.skip_uids as string[] | null | undefined) ?? [],
    actor_uid: row.actor_uid as string,
    created_at: row.created_at as string,
    changes: (row.changes as MessageChange[] | null | undefined) ?? [],
    membership: membershipChannel
      ? { channel_id: membershipChannel, joined: row.membership_joined === true }
      : null,
  };
}

/** Who hears about a change to these messages (see audienceEvents). */
export async function findMessageAudience(tx: Tx, messageIds: string[]): Promise<MessageAudience[]> {
  if (messageIds.length === 0) return [];
  const rows = await tx.run('event-log/message-audience', { message_ids: messageIds });
  return rows.map((row) => ({
    message_id: row.message_id as string,
    author_uid: row.author_uid as string,
    receiver_uids: row.receiver_uids as string[],
    channel_ids: row.channel_ids as string[],
  }));
}
