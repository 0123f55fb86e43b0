// POST /v1/messages: one message, {messages: [...]}, or a raw array. Each item succeeds or fails on
// its own (MessageCreateResult); in a multi-message input each item after the first is a reply to
// the previous successful one. Everything is checked first in one read, then all successful items
// are written in one transaction of UNWIND queries, together with the idempotency record and the
// events: `sent` to each recipient (unless notify is false), one per user batching the messages of
// this post, and one `channels` event per channel posted into, heard by its members. A reply with
// `"audience": "parent"` also goes to its parent's author and CC recipients and into its parent's
// channels that the poster belongs to; an `@tag` in the content pings that user if they can see the
// message (contract "Messages").
// What one request may cost (security review 2026-12-02, item 4): its recipients summed over its
// messages are at most SKEIN_MAX_DELIVERIES_PER_POST, else 422 before anything is written;
// the post limit counts its messages (postedMessageCount; the routes and resolvers spend it).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import { newShortId } from '../../platform/auth/secrets.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, validationError, type ErrorCode } from '../../platform/errors.js';
import { constraintClash } from '../../platform/neo4j/unique-ids.js';
import type { InputLocation } from '../../platform/validation.js';
import {
  announceEvents,
  changeEvents,
  channelEvents,
  recordEvents,
  userEvents,
} from '../event-log/record-events.js';
import type { EventRows } from '../event-log/event-log-repository.js';
import type { SequencedRound } from '../event-log/event-log.js';
import type { PostLanding, WrittenForDelivery } from '../event-log/event-log-services.js';
import {
  ParentVanished,
  findMentioned,
  findIdempotentAnswer,
  POST_CHANNEL_MEMBERS_READ,
  postViewers,
  resolvePostRefs,
  saveIdempotentAnswer,
  type NewMessage,
  type NewMessageEdges,
  type ParentRef,
  type PostRefs,
  writePost,
} from './messages-repository.js';
import { inPostLane } from './post-lanes.js';
import {
  ImportedMessageInput,
  MAX_ITEMS_PER_POST,
  MessageInput,
  type ItemError,
  type MessageCreateResult,
  type MessageOutput,
} from './messages.schemas.js';
import { mentionedTags } from './mentions.js';
import { parseRecipient } from './recipients.js';

/** The three body forms, as a list of raw items. */
export function bodyItems(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && 'messages' in body && Array.isArray(body.messages))
    return body.messages;
  return [body];
}

/**
 * What a request's messages cost on the post limit: one point each, as sent (a body of none of the
 * three forms counts one, and no more than the most a post may hold).
 */
export function postedMessageCount(items: unknown[]): number {
  return Math.min(Math.max(items.length, 1), MAX_ITEMS_PER_POST);
}

/** Plain posts, or imports (quotes) whose items must carry external attribution in import_info. */
export type PostKind = 'post' | 'import';
const ITEM_SCHEMAS = { post: MessageInput, import: ImportedMessageInput };
type ItemInput = MessageInput & { import_info?: ImportedMessageInput['import_info'] };

/** What a post's messages carry besides their input: how a streamed reply ended (MessageOutput.stream). */
export interface PostMarks {
  stream?: NonNullable<MessageOutput['stream']>;
}

/** `inputAt` names where the items came from (REST body, GraphQL args) in a 422's `loc`. */
export async function postMessages(
  ctx: AppContext,
  caller: Caller,
  rawItems: unknown[],
  idempotencyKey: string | undefined,
  kind: PostKind = 'post',
  inputAt: InputLocation = 'body',
  marks: PostMarks = {},
): Promise<MessageCreateResult[]> {
  assertScope(caller, 'messages.write');
  const checked = checkItems(rawItems, kind);
  // The recipients named, before anything is read; the write checks them again as resolved.
  assertDeliveriesWithin(ctx, namedDeliveries(checked), inputAt);
  // Keys are per caller and per kind: a post and an import never answer for each other.
  const key = idempotencyKey ? `${kind}:${caller.uid}:${idempotencyKey}` : null;
  if (key) {
    const earlier = await findIdempotentAnswer(ctx.db, key);
    if (earlier) return JSON.parse(earlier) as MessageCreateResult[];
  }
  for (let attempt = 0; ; attempt++) {
    let committed: Committed;
    try {
      // Written in its lane (post-lanes.ts), and counted as writing once it leaves the lane's queue,
      // so that a post alone in Neo4j here numbers its own events (event-sequencer.ts).
      committed = await inPostLane(ctx, rawItems, () =>
        ctx.events.sequencer.writing(() => attemptPost(ctx, caller, checked, key, inputAt, marks)),
      );
    } catch (error) {
      if (key && constraintClash(error) === 'key') {
        // The same key raced in from another request, which won: answer what it answered.
        const earlier = await findIdempotentAnswer(ctx.db, key);
        if (earlier) return JSON.parse(earlier) as MessageCreateResult[];
      }
      const retriable = error instanceof ParentVanished || constraintClash(error) === 'id';
      if (!retriable || attempt >= 3) throw error;
      continue;
    }
    // Committed: the answer waits until the events are numbered and sent (to sockets first).
    await announceEvents(ctx, committed);
    if (committed.landing) ctx.events.landed.tell(committed.landing);
    return committed.results;
  }
}

/**
 * A post's checks and write as postMessages runs them, without its lane, its numbering and its
 * events: the warm-up runs it on a rehearsal database (Database.rehearse), where nothing lands.
 */
export async function rehearsePost(
  ctx: AppContext,
  caller: Caller,
  rawItems: unknown[],
): Promise<MessageCreateResult[]> {
  return (await attemptPost(ctx, caller, checkItems(rawItems, 'post'), null, 'body', {})).results;
}

/**
 * A committed post: its answer, the events it recorded, the round it numbered them in if any, and
 * what its write read for their delivery.
 */
interface Committed {
  results: MessageCreateResult[];
  recorded: EventRows | undefined;
  round: SequencedRound | null;
  seen: WrittenForDelivery | undefined;
  /** Where its messages landed; undefined when it wrote none. */
  landing: PostLanding | undefined;
}

/**
 * The channels whose members the write reads for delivery: those whose messages in this post all
 * start a thread (so every member sees all of it, and nothing else is judged), when delivery here
 * asks for them (CommitNotices.wantsMembers).
 */
function channelsToView(
  ctx: AppContext,
  items: NewMessage[],
  inclusions: NewMessageEdges['inclusions'],
): string[] {
  const replies = new Set(items.filter((item) => item.parent_id !== null).map((item) => item.id));
  const withReplies = new Set(inclusions.filter((i) => replies.has(i.message_id)).map((i) => i.channel_id));
  return unique(inclusions.map((i) => i.channel_id)).filter(
    (id) => !withReplies.has(id) && ctx.events.committed.wantsMembers(id),
  );
}

type Checked = { index: number; input: ItemInput } | { index: number; error: ItemError };

/** Each item parsed on its own: an invalid one fails alone (422 in its result). */
function checkItems(rawItems: unknown[], kind: PostKind): Checked[] {
  return rawItems.map((raw, index) => {
    const parsed = ITEM_SCHEMAS[kind].safeParse(raw);
    if (parsed.success) return { index, input: parsed.data };
    return {
      index,
      error: { status: 422, code: 'validation_error', detail: describeIssues(parsed.error.issues) },
    };
  });
}

/** Recipients the valid items name, each counted once per item (by tag or uid, as written). */
function namedDeliveries(checked: Checked[]): number {
  return checked.reduce(
    (sum, item) =>
      'input' in item ? sum + new Set(item.input.recipients.map((r) => parseRecipient(r).key)).size : sum,
    0,
  );
}

/**
 * 422 when a post would write more than SKEIN_MAX_DELIVERIES_PER_POST receivers edges (recipients
 * summed over its messages): each is an event, and each event a send and a context read per socket.
 */
function assertDeliveriesWithin(ctx: AppContext, deliveries: number, inputAt: InputLocation): void {
  const max = ctx.config.rateLimits.maxDeliveriesPerPost;
  if (deliveries <= max) return;
  throw validationError([
    {
      loc: [inputAt],
      msg:
        `this request has ${deliveries} recipients summed over its messages (counting those ` +
        `"audience": "parent" adds); at most ${max} per request: send it in smaller parts`,
      type: 'too_many_deliveries',
    },
  ]);
}

const MESSAGE_NOT_FOUND: ItemError = { status: 404, code: 'message_not_found', detail: 'Message not found.' };

async function attemptPost(
  ctx: AppContext,
  caller: Caller,
  checked: Checked[],
  key: string | null,
  inputAt: InputLocation,
  marks: PostMarks,
): Promise<Committed> {
  const inputs = checked.flatMap((item) => ('input' in item ? [item.input] : []));
  const recipientRefs = inputs.flatMap((input) => input.recipients.map(parseRecipient));
  const wanted = {
    parent_ids: unique(inputs.flatMap((input) => (input.parent_id ? [input.parent_id] : []))),
    tags: unique([
      ...recipientRefs.filter((r) => r.kind === 'tag').map((r) => r.value),
      ...inputs.flatMap((input) => mentionedTags(input.content)),
    ]),
    uids: unique(recipientRefs.filter((r) => r.kind === 'uid').map((r) => r.value)),
    channel_ids: unique(inputs.flatMap((input) => input.channel_ids)),
    file_ids: unique(inputs.flatMap((input) => input.files.map((file) => file.file_id))),
  };

  // References are resolved in the write transaction itself (one transaction per post, not two);
  // a retry of that transaction plans again from what it reads.
  let recorded: EventRows | undefined;
  let round: SequencedRound | null = null;
  let seen: WrittenForDelivery | undefined;
  let landing: PostLanding | undefined;
  const results = await ctx.db.inWrite(async (tx) => {
    recorded = undefined;
    round = null;
    seen = undefined;
    landing = undefined;
    const refs = await resolvePostRefs(tx, caller.uid, wanted);
    const { items, edges, toNotify, mentioned, outcome } = planPost(checked, refs, caller.uid, marks);
    // As resolved: "audience": "parent" adds recipients. Nothing is written yet.
    assertDeliveriesWithin(ctx, edges.receivers.length, inputAt);
    let messages = new Map<string, MessageOutput>();
    if (items.length > 0) {
      const events = changeEvents(caller.uid, [
        ...userEvents('sent', toNotify, caller.uid),
        // A recipient who asked not to be notified is still not told through the channel.
        ...channelEvents('channels', edges.inclusions, caller.uid, edges.receivers),
      ]);
      // Only their kept answers end (view-cache.ts); a public message ends everybody's anyway.
      const named = !items.some((item) => item.public);
      const written = await writePost(tx, items, edges, events, {
        channelMembersLimit: named ? POST_CHANNEL_MEMBERS_READ : 0,
        publicUrl: ctx.config.publicUrl,
        // Asked at each attempt: a retry may no longer be alone.
        roundLimit: ctx.events.sequencer.ownRoundLimit(),
        viewChannelIds: channelsToView(ctx, items, edges.inclusions),
      });
      messages = written.messages;
      landing = landingOf(caller.uid, items, edges);
      recorded = events;
      round = written.round;
      seen = { messages: [...written.messages.values()], channelMembers: written.channelMembers };
      if (named) {
        const viewers = postViewers(caller.uid, edges, written.channelMemberUids);
        // New roots outside channels change no message that was there before (view-cache.ts).
        const newRootsOnly = edges.replies.length === 0 && edges.inclusions.length === 0;
        if (viewers) tx.onlyVisibleTo(viewers, { newRootsOnly });
      }
    }
    // The answer is what the write read back: as the poster sees the messages at the commit.
    const answer = outcome.map((entry): MessageCreateResult => {
      if (!('id' in entry)) return { index: entry.index, ok: false, error: entry.error };
      const message = messages.get(entry.id);
      if (!message) throw new Error(`write-post did not read back message ${entry.id}`);
      return { index: entry.index, ok: true, message };
    });
    if (key) await saveIdempotentAnswer(tx, key, JSON.stringify(answer));
    // A mention pings only who can see the message and is not told about it by this post already
    // (judged on the written message, so after the write).
    const told = new Set(toNotify.map((t) => `${t.uid}/${t.message_id}`));
    const pinged = await findMentioned(
      tx,
      mentioned.filter((m) => !told.has(`${m.uid}/${m.message_id}`)),
    );
    if (pinged.length > 0) await recordEvents(tx, caller.uid, userEvents('ping', pinged, caller.uid));
    return answer;
  });
  return { results, recorded, round, seen, landing };
}

/** Where a post's messages landed (PostLanding), from what it writes. */
function landingOf(uid: string, items: NewMessage[], edges: NewMessageEdges): PostLanding {
  const inChannels = new Set(edges.inclusions.map((i) => i.message_id));
  const conversations = items
    .filter((item) => item.parent_id === null && !inChannels.has(item.id))
    .map((item) =>
      unique([uid, ...edges.receivers.filter((r) => r.message_id === item.id).map((r) => r.uid)]).sort(),
    );
  return {
    uid,
    parent_ids: unique(edges.replies.map((r) => r.parent_id)),
    channel_ids: unique(edges.inclusions.map((i) => i.channel_id)),
    conversations,
  };
}

/** What a post writes, decided from the references it resolved. */
interface PostPlan {
  items: NewMessage[];
  edges: NewMessageEdges;
  toNotify: { uid: string; message_id: string }[];
  mentioned: { uid: string; message_id: string }[];
  outcome: ({ index: number; id: string } | { index: number; error: ItemError })[];
}

/** Plans every item in order; an item that fails leaves the chain to the previous successful one. */
function planPost(checked: Checked[], refs: PostRefs, callerUid: string, marks: PostMarks): PostPlan {
  const streamJson = marks.stream ? JSON.stringify(marks.stream) : null;
  const base = Date.now();
  const items: NewMessage[] = [];
  const edges: NewMessageEdges = { replies: [], receivers: [], inclusions: [], attachments: [] };
  const toNotify: { uid: string; message_id: string }[] = [];
  const mentioned: { uid: string; message_id: string }[] = [];
  const outcome: ({ index: number; id: string } | { index: number; error: ItemError })[] = [];
  let previous: ParentRef | null = null;
  for (const item of checked) {
    if ('error' in item) {
      outcome.push(item);
      continue;
    }
    const planned = planItem(item.input, refs, previous, callerUid);
    if ('error' in planned) {
      outcome.push({ index: item.index, error: planned.error });
      continue;
    }
    const id = newShortId();
    const parent = planned.parent;
    items.push({
      id,
      content: item.input.content,
      subject: item.input.subject ?? null,
      public: item.input.public,
      // Strictly increasing, so a chain reads in the order it was written.
      created_at: new Date(base + items.length).toISOString(),
      parent_id: parent?.id ?? null,
      root_id: parent?.root_id ?? id,
      tags: item.input.tags,
      import_info_json: item.input.import_info ? JSON.stringify(item.input.import_info) : null,
      stream_json: streamJson,
    });
    if (parent) edges.replies.push({ parent_id: parent.id, child_id: id });
    for (const r of planned.receivers) {
      edges.receivers.push({ message_id: id, uid: r.uid, public: r.public });
      if (r.notify) toNotify.push({ uid: r.uid, message_id: id });
    }
    for (const channelId of planned.channel_ids)
      edges.inclusions.push({ message_id: id, channel_id: channelId });
    item.input.files.forEach((file, position) =>
      edges.attachments.push({ message_id: id, file_id: file.file_id, position }),
    );
    for (const tag of mentionedTags(item.input.content)) {
      const uid = refs.users.get(`tag:${tag}`);
      if (uid && uid !== callerUid) mentioned.push({ uid, message_id: id });
    }
    outcome.push({ index: item.index, id });
    // The next item replies to this one; its audience, for "audience": "parent", is this one's.
    previous = {
      id,
      root_id: parent?.root_id ?? id,
      author_uid: callerUid,
      cc_uids: planned.receivers.filter((r) => r.public).map((r) => r.uid),
      channel_ids: planned.channel_ids,
    };
  }
  return { items, edges, toNotify, mentioned, outcome };
}

export interface PlannedItem {
  parent: ParentRef | null;
  receivers: { uid: string; public: boolean; notify: boolean }[];
  channel_ids: string[];
}

/** The part of a post's input that decides whom it reaches. */
export type AudienceInput = Pick<
  MessageInput,
  'parent_id' | 'recipients' | 'channel_ids' | 'files' | 'audience'
>;

/**
 * Who a message of this input would reach, judged as a post judges it (one read, nothing written):
 * the errors are the post's (404 for a parent one may not see, 403 for a channel one is not in).
 * Streamed replies open with it, and typing signals judge their audience with it (src/components/live).
 */
export async function planAudience(
  ctx: AppContext,
  caller: Caller,
  input: AudienceInput,
): Promise<PlannedItem> {
  const recipients = input.recipients.map(parseRecipient);
  const refs = await resolvePostRefs({ run: (name, params) => ctx.db.read(name, params) }, caller.uid, {
    parent_ids: input.parent_id ? [input.parent_id] : [],
    tags: recipients.filter((r) => r.kind === 'tag').map((r) => r.value),
    uids: recipients.filter((r) => r.kind === 'uid').map((r) => r.value),
    channel_ids: input.channel_ids,
    file_ids: input.files.map((file) => file.file_id),
  });
  const planned = planItem(input, refs, null, caller.uid);
  if ('error' in planned) throw new AppError(planned.error.code as ErrorCode, planned.error.detail);
  return planned;
}

/** Checks one item against what exists; the first problem fails the item. */
function planItem(
  input: AudienceInput,
  refs: PostRefs,
  previous: ParentRef | null,
  callerUid: string,
): PlannedItem | { error: ItemError } {
  let parent = previous;
  if (!parent && input.parent_id) {
    parent = refs.parents.get(input.parent_id) ?? null;
    if (!parent) return { error: MESSAGE_NOT_FOUND };
  }
  const receivers = new Map<string, { uid: string; public: boolean; notify: boolean }>();
  for (const recipient of input.recipients.map(parseRecipient)) {
    const uid = refs.users.get(recipient.key);
    if (!uid)
      return { error: { status: 404, code: 'user_not_found', detail: `No such user: ${recipient.value}.` } };
    if (!receivers.has(uid)) receivers.set(uid, { uid, public: recipient.public, notify: recipient.notify });
  }
  for (const channelId of input.channel_ids) {
    const channel = refs.channels.get(channelId);
    if (!channel) return { error: { status: 404, code: 'channel_not_found', detail: 'Channel not found.' } };
    if (!channel.member) {
      return {
        error: { status: 403, code: 'not_channel_member', detail: 'You are not a member of that channel.' },
      };
    }
  }
  for (const file of input.files) {
    if (!refs.files.has(file.file_id)) {
      return { error: { status: 404, code: 'file_not_found', detail: `No file ${file.file_id} of yours.` } };
    }
  }
  const channelIds = unique(input.channel_ids);
  if (parent && input.audience === 'parent') {
    // The parent's author and CC recipients (never its BCC ones: the poster may not even see them),
    // as CC recipients told like any other; the parent's channels that the poster belongs to.
    for (const uid of [parent.author_uid, ...parent.cc_uids]) {
      if (uid !== callerUid && !receivers.has(uid)) receivers.set(uid, { uid, public: true, notify: true });
    }
    for (const channelId of parent.channel_ids)
      if (!channelIds.includes(channelId)) channelIds.push(channelId);
  }
  return { parent, receivers: [...receivers.values()], channel_ids: channelIds };
}

function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || 'item'}: ${issue.message}`).join('; ');
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
