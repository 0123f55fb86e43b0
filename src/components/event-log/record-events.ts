// The one place every state change records its events (as Zulip's do_* actions record a change
// and its event together). Writers call recordEvents inside their write transaction, so an event
// exists exactly when its change committed, and announceEvents after the commit, so the events are
// numbered and on their way before the request answers (event-sequencer.ts).
//
// Choosing who hears about what is a security decision, made here: the planners below decide the
// audience, and what each member is then shown is judged per member, with the visibility rule,
// when the event is handed out (components/events/event-payloads.ts).
import type { Tx } from '../../platform/neo4j/database.js';
import type { EventSequencer } from './event-sequencer.js';
import type { CommitNotices, WrittenForDelivery } from './event-log-services.js';
import type { EventType, MessageChange, NewEvent, SequencedRound } from './event-log.js';
import { eventRows, findMessageAudience, insertEvents, type EventRows } from './event-log-repository.js';

export type { NewEvent } from './event-log.js';

/** Records the change's events in its transaction; the actor is never told about their own action. */
export async function recordEvents(tx: Tx, actorUid: string, events: NewEvent[]): Promise<void> {
  await insertEvents(tx, changeEvents(actorUid, events));
}

/**
 * The rows recordEvents writes, for a writer that records them in its own statement (a post, in
 * messages/write-post.cypher, through the same fragment).
 */
export function changeEvents(actorUid: string, events: NewEvent[]): EventRows {
  const wanted = events.filter(
    (e) => e.type === 'membership' || (e.message_ids.length > 0 && e.uid !== actorUid),
  );
  return eventRows(actorUid, wanted);
}

/**
 * After the commit: waits until the change's events are numbered and published (never throws). A
 * writer that has the rows it recorded passes them (with what it read for their delivery, if
 * anything), so delivery can start preparing while they are numbered; one that numbered them
 * itself (a lone post, event-sequencer.ts) passes its round, which is published at once, and the
 * flush then settles it.
 */
export async function announceEvents(
  ctx: { events: { sequencer: EventSequencer; committed: CommitNotices } },
  change: { recorded?: EventRows; seen?: WrittenForDelivery; round?: SequencedRound | null } = {},
): Promise<void> {
  if (change.recorded) ctx.events.committed.tell(change.recorded.events, change.seen);
  if (change.round) await ctx.events.sequencer.publishOwn(change.round);
  await ctx.events.sequencer.flush();
}

/**
 * One event per user of one type, batching that user's messages in the order given. The actor is
 * left out.
 */
export function userEvents(
  type: EventType,
  pairs: { uid: string; message_id: string }[],
  actorUid: string,
  changes?: MessageChange[],
): NewEvent[] {
  const byUid = new Map<string, string[]>();
  for (const { uid, message_id } of pairs) {
    if (uid === actorUid) continue;
    const ids = byUid.get(uid) ?? [];
    if (!ids.includes(message_id)) ids.push(message_id);
    byUid.set(uid, ids);
  }
  return [...byUid].map(([uid, message_ids]) => ({
    type,
    uid,
    message_ids,
    ...(changes ? { changes } : {}),
  }));
}

/**
 * One event per channel, batching the messages included in it, heard by its members except the
 * actor and `alreadyTold` (users a direct event of the same change tells about that message, or
 * who asked not to be notified). A member is skipped only when told about every message of it.
 */
export function channelEvents(
  type: EventType,
  inclusions: { message_id: string; channel_id: string }[],
  actorUid: string,
  alreadyTold: { uid: string; message_id: string }[] = [],
  changes?: MessageChange[],
): NewEvent[] {
  const byChannel = new Map<string, string[]>();
  for (const { message_id, channel_id } of inclusions) {
    const ids = byChannel.get(channel_id) ?? [];
    if (!ids.includes(message_id)) ids.push(message_id);
    byChannel.set(channel_id, ids);
  }
  return [...byChannel].map(([channel_id, message_ids]) => {
    const toldAbout = new Map<string, Set<string>>();
    for (const { uid, message_id } of alreadyTold) {
      if (!message_ids.includes(message_id)) continue;
      toldAbout.set(uid, (toldAbout.get(uid) ?? new Set()).add(message_id));
    }
    const skip = [...toldAbout].filter(([, ids]) => ids.size === message_ids.length).map(([uid]) => uid);
    return {
      type,
      channel_id,
      message_ids,
      skip_uids: [...new Set([actorUid, ...skip])],
      ...(changes ? { changes } : {}),
    };
  });
}

/** A user joined or left a channel: the instances following that user start or stop its stream. */
export function membershipEvent(uid: string, channelId: string, joined: boolean): NewEvent {
  return { type: 'membership', uid, message_ids: [], membership: { channel_id: channelId, joined } };
}

export interface MessageAudience {
  message_id: string;
  author_uid: string;
  receiver_uids: string[];
  channel_ids: string[];
}

/**
 * Events about existing messages that changed or were deleted: each message's author and recipients
 * directly, and each of its channels' members through the channel (except those told directly).
 */
export function audienceEvents(
  type: 'message.updated' | 'message.deleted',
  audience: MessageAudience[],
  actorUid: string,
  changes?: MessageChange[],
  options: AudienceOptions = {},
): NewEvent[] {
  const skip = new Set(options.skipUids ?? []);
  const direct = audience.flatMap((a) =>
    (options.authorsOnly ? [a.author_uid] : [a.author_uid, ...a.receiver_uids]).map((uid) => ({
      uid,
      message_id: a.message_id,
    })),
  );
  const inclusions = options.authorsOnly
    ? []
    : audience.flatMap((a) => a.channel_ids.map((channel_id) => ({ channel_id, message_id: a.message_id })));
  const skipped = [...skip].flatMap((uid) => audience.map((a) => ({ uid, message_id: a.message_id })));
  return [
    ...userEvents(
      type,
      direct.filter((d) => !skip.has(d.uid)),
      actorUid,
      changes,
    ),
    ...channelEvents(type, inclusions, actorUid, [...direct, ...skipped], changes),
  ];
}

export interface AudienceOptions {
  /** Users not to tell (they hear about the change another way). */
  skipUids?: string[];
  /** Tell only the messages' authors (a change only they may see). */
  authorsOnly?: boolean;
}

/** Records message.updated or message.deleted for these messages; call before deleting them. */
export async function recordMessageChange(
  tx: Tx,
  actorUid: string,
  type: 'message.updated' | 'message.deleted',
  messageIds: string[],
  changes?: MessageChange[],
  options: AudienceOptions = {},
): Promise<void> {
  if (messageIds.length === 0) return;
  const audience = await findMessageAudience(tx, messageIds);
  await recordEvents(tx, actorUid, audienceEvents(type, audience, actorUid, changes, options));
}
