// The only code that runs the channels' Cypher. Takes and returns plain objects.
import type { Database, Row, Tx } from '../../platform/neo4j/database.js';
import { withFreshId } from '../../platform/neo4j/unique-ids.js';
import type { ChannelMember, ChannelOutput } from './channels.schemas.js';

/** A database, or the transaction a use case is already in. */
type Source = Database | Tx;

function run(source: Source, name: string, params: Record<string, unknown>): Promise<Row[]> {
  return 'read' in source ? source.read(name, params) : source.run(name, params);
}

function toChannelOutput(row: Row): ChannelOutput {
  const c = row.channel as Omit<ChannelOutput, 'is_admin' | 'member_count'>;
  return {
    id: c.id,
    display_name: c.display_name,
    description: c.description ?? null,
    created_at: c.created_at,
    created_by: c.created_by,
    is_admin: row.is_admin === true,
    member_count: row.member_count as number,
  };
}

function now(): string {
  return new Date().toISOString();
}

export interface Membership {
  member: boolean;
  is_admin: boolean;
}

/** The viewer's membership of a channel, or null when the channel does not exist. */
export async function findMembership(
  source: Source,
  channelId: string,
  viewerUid: string,
): Promise<Membership | null> {
  const [row] = await run(source, 'channels/find-membership', {
    channel_id: channelId,
    viewer_uid: viewerUid,
  });
  return row ? { member: row.member === true, is_admin: row.is_admin === true } : null;
}

/** Creates a channel with its creator as admin; an id clash is retried with a new id. */
export async function createChannel(
  db: Database,
  creatorUid: string,
  fields: { display_name: string; description: string | null },
  /** More of the same transaction (the creator's membership event). */
  andThen: (tx: Tx, channel: ChannelOutput) => Promise<void>,
): Promise<ChannelOutput | null> {
  return withFreshId('id', async (id) =>
    db.inWrite(async (tx) => {
      const [row] = await tx.run('channels/create-channel', {
        ...fields,
        id,
        creator_uid: creatorUid,
        now: now(),
      });
      if (!row) return null;
      const channel = toChannelOutput(row);
      await andThen(tx, channel);
      return channel;
    }),
  );
}

/** The channels the viewer belongs to. */
export async function listChannelsOf(db: Database, viewerUid: string): Promise<ChannelOutput[]> {
  const rows = await db.read('channels/list-channels', { viewer_uid: viewerUid });
  return rows.map(toChannelOutput);
}

/** Channels by id, only those the viewer belongs to (in no particular order). */
export async function findChannels(
  db: Database,
  viewerUid: string,
  ids: readonly string[],
): Promise<ChannelOutput[]> {
  if (ids.length === 0) return [];
  const rows = await db.read('channels/find-channels', { viewer_uid: viewerUid, ids });
  return rows.map(toChannelOutput);
}

export async function updateChannel(
  tx: Tx,
  viewerUid: string,
  channelId: string,
  changes: { display_name?: string; description?: string | null },
): Promise<ChannelOutput | null> {
  const [row] = await tx.run('channels/update-channel', {
    channel_id: channelId,
    viewer_uid: viewerUid,
    changes,
  });
  return row ? toChannelOutput(row) : null;
}

export async function deleteChannel(tx: Tx, channelId: string): Promise<void> {
  await tx.run('channels/delete-channel', { channel_id: channelId });
}

/** Members of each channel the viewer belongs to, keyed by channel id. */
export async function listMembers(
  db: Database,
  viewerUid: string,
  channelIds: readonly string[],
): Promise<Map<string, ChannelMember[]>> {
  const rows = await db.read('channels/list-members', { viewer_uid: viewerUid, channel_ids: channelIds });
  return new Map(rows.map((row) => [row.channel_id as string, row.members as ChannelMember[]]));
}

export interface MemberChangeState {
  /** The viewer's own membership. */
  viewer: Membership;
  /** The membership being changed. */
  target: Membership;
  admin_count: number;
}

/** Locks the channel's memberships for this transaction and reads them; null when no such channel. */
export async function lockMembers(
  tx: Tx,
  channelId: string,
  viewerUid: string,
  targetUid: string,
): Promise<MemberChangeState | null> {
  const [row] = await tx.run('channels/lock-members', {
    channel_id: channelId,
    viewer_uid: viewerUid,
    uid: targetUid,
    now: now(),
  });
  if (!row) return null;
  return {
    viewer: { member: row.member === true, is_admin: row.is_admin === true },
    target: { member: row.target_member === true, is_admin: row.target_is_admin === true },
    admin_count: row.admin_count as number,
  };
}

/** Adds a member or sets an existing member's admin flag (null keeps it); null when the user is gone. */
export async function addMember(
  tx: Tx,
  viewerUid: string,
  channelId: string,
  uid: string,
  isAdmin: boolean | null,
): Promise<ChannelMember | null> {
  const [row] = await tx.run('channels/add-member', {
    channel_id: channelId,
    viewer_uid: viewerUid,
    uid,
    is_admin: isAdmin,
    now: now(),
  });
  return row ? (row as unknown as ChannelMember) : null;
}

export async function removeMember(tx: Tx, channelId: string, uid: string): Promise<boolean> {
  const [row] = await tx.run('channels/remove-member', { channel_id: channelId, uid });
  return (row?.removed as number | undefined) === 1;
}

/** One page of ids of messages in the channel (newest first), with one extra when more follow. */
export async function listChannelMessageIds(
  db: Database,
  viewerUid: string,
  channelId: string,
  page: { skip: number; limit: number },
): Promise<string[]> {
  const rows = await db.read('channels/list-message-ids', {
    viewer_uid: viewerUid,
    channel_id: channelId,
    skip: page.skip,
    limit: page.limit,
  });
  return rows.map((row) => row.id as string);
}

export interface MessageChannelRefs {
  visible: boolean;
  /** The target channels that exist, with whether the viewer belongs to each. */
  channels: Map<string, { member: boolean }>;
}

export async function findMessageChannelRefs(
  tx: Tx,
  viewerUid: string,
  messageId: string,
  channelIds: readonly string[],
): Promise<MessageChannelRefs> {
  const [row] = await tx.run('channels/find-message-channel-refs', {
    viewer_uid: viewerUid,
    message_id: messageId,
    channel_ids: channelIds,
  });
  const channels = (row?.channels as { id: string; member: boolean }[] | undefined) ?? [];
  return {
    visible: row?.visible === true,
    channels: new Map(channels.map((c) => [c.id, { member: c.member }])),
  };
}

/** Replaces the message's channels among the viewer's; null when the message is gone. */
export async function setMessageChannels(
  tx: Tx,
  viewerUid: string,
  messageId: string,
  channelIds: readonly string[],
): Promise<{ before: string[]; channel_ids: string[] } | null> {
  const [row] = await tx.run('channels/set-message-channels', {
    viewer_uid: viewerUid,
    message_id: messageId,
    channel_ids: channelIds,
    now: now(),
  });
  return row ? { before: row.before as string[], channel_ids: row.channel_ids as string[] } : null;
}

export interface MessageInclusion {
  message_id: string;
  channel_id: string;
  /** Who included it; null for an inclusion recorded without its adder. */
  added_by: string | null;
  /** Whether the adder sees the message without the public flag and without channels. */
  adder_sees_it: boolean;
  /** The other channels holding the message that the adder belongs to. */
  adder_channel_ids: string[];
}

/** Every channel inclusion of the messages, with what the adder could see them through. */
export async function findMessageInclusions(
  tx: Tx,
  messageIds: readonly string[],
): Promise<MessageInclusion[]> {
  const rows = await tx.run('channels/find-message-inclusions', { message_ids: messageIds });
  return rows.map((row) => ({
    message_id: row.message_id as string,
    channel_id: row.channel_id as string,
    added_by: (row.adder as string | null) ?? null,
    adder_sees_it: row.adder_sees_it === true,
    adder_channel_ids: row.adder_channel_ids as string[],
  }));
}

/** Removes the listed inclusions in one statement. */
export async function removeInclusions(
  tx: Tx,
  inclusions: readonly { message_id: string; channel_id: string }[],
): Promise<void> {
  if (inclusions.length === 0) return;
  await tx.run('channels/remove-inclusions', { inclusions });
}
