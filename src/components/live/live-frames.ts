// What live delivery (decision 031) sends, and to whom. Live news is not in the event log: it has
// no cursor, is never replayed by `since` and never becomes a webhook; a connection that asked for
// it (`/v1/ws/v1?live=true`, GraphQL `subscription live`) gets these frames beside its events.

/** An account as live frames name it. */
export interface LiveUser {
  uid: string;
  user_tag: string;
}

/** Where someone types: a reply to a message, a channel, or a conversation with named users. */
export type TypingTarget =
  | { message_id: string }
  | { channel_id: string }
  /** Every uid of the conversation, the typist's included, sorted. */
  | { conversation: string[] };

/**
 * Who receives a piece of live news: these accounts and the members of these channels, never the
 * writer itself. Channel members are never listed: each instance asks its own feeds, which follow
 * memberships in the log's order (live-router.ts).
 */
export interface Audience {
  uids: string[];
  channel_ids: string[];
  except_uid: string;
}

export type TypingFrame =
  | { type: 'typing.started'; target: TypingTarget; user: LiveUser; status: string | null }
  | { type: 'typing.stopped'; target: TypingTarget; user: LiveUser };

/** The key of a target: one signal per (typist, key). */
export function targetKey(target: TypingTarget): string {
  if ('message_id' in target) return `m:${target.message_id}`;
  if ('channel_id' in target) return `c:${target.channel_id}`;
  return `u:${target.conversation.join(',')}`;
}

export function reaches(audience: Audience, uid: string, follows: (channelId: string) => boolean): boolean {
  if (uid === audience.except_uid) return false;
  return audience.uids.includes(uid) || audience.channel_ids.some(follows);
}
