// What a logged event shows one recipient, built from the graph at the moment it is handed out
// (socket frame, subscription, GET /v1/notifications, webhook body, delivery log). A message that
// was deleted, or that the recipient can no longer see, is left out; an event left with nothing to
// show is not handed out at all (null).
//
// Requests made in the same turn of the event loop are built together: when a channel event reaches
// a thousand open sockets on this instance, its messages and context are judged once for the
// channel (everything public or in the channel is visible to every member), and only what is not
// is judged per member; all in one round trip.
import DataLoader from 'dataloader';
import type { AppContext } from '../../platform/context.js';
import { encodeCursor, type CommittedEvent, type LoggedEvent } from '../event-log/event-log.js';
import type { WrittenForDelivery } from '../event-log/event-log-services.js';
import {
  buildChannelView,
  buildPayloads,
  type ChannelView,
  type ChannelViewNode,
} from './events-repository.js';
import type { ClientEvent, DeliveredEvent, EventMessage } from './notification-event.js';

interface PayloadKey {
  uid: string;
  event: LoggedEvent;
}

const loaders = new WeakMap<AppContext, DataLoader<PayloadKey, ClientEvent | null>>();

/**
 * Channel views judged ahead, by event and messages (the same key buildBatch groups by), with the
 * uids they were judged for. A post's channel event is judged for this instance's listeners while
 * the sequencer numbers it (the two round trips overlap instead of following each other), or, when
 * its messages there all start a thread, taken from what the post read at its write (no round trip
 * at all); buildBatch takes the view when the event arrives, and judges anyone the view was not
 * judged for on their own.
 */
interface AheadView {
  uids: ReadonlySet<string>;
  view: Promise<ChannelView | null>;
}
const aheadViews = new WeakMap<AppContext, Map<string, AheadView>>();
/** A view nobody took (its listeners left, or the event went to another instance) is dropped. */
const AHEAD_TTL_MS = 10_000;

const channelKey = (event: { id: string; message_ids: readonly string[] }) =>
  `${event.id}|${event.message_ids.join(',')}`;

/**
 * A channel event whose messages are judged once for the channel's listeners. A membership event
 * is internal (nobody is shown it), and a deletion shows everyone the same ids, unjudged.
 */
function judgedForChannel<E extends CommittedEvent>(event: E): event is E & { channel_id: string } {
  return event.channel_id !== null && event.type !== 'membership' && event.type !== 'message.deleted';
}

/**
 * Judges committed channel events ahead for the listeners here (called once a feed opens: with no
 * feed on this instance there is nobody to judge for).
 */
export function judgeChannelEventsAhead(ctx: AppContext): void {
  if (aheadViews.has(ctx)) return;
  const ahead = new Map<string, AheadView>();
  aheadViews.set(ctx, ahead);
  const judgedHere = (channelId: string) => ctx.events.router.listenerCount(channelId) >= CHANNEL_VIEW_MIN;
  ctx.events.committed.observe((events, seen) => {
    for (const event of events) {
      if (!judgedForChannel(event) || !judgedHere(event.channel_id)) continue;
      const key = channelKey(event);
      ahead.set(key, viewAsWritten(event, seen) ?? judgeAhead(ctx, event));
      setTimeout(() => ahead.delete(key), AHEAD_TTL_MS).unref();
    }
  }, judgedHere);
}

function judgeAhead(ctx: AppContext, event: CommittedEvent & { channel_id: string }): AheadView {
  const uids = ctx.events.router.listenersOf(event.channel_id);
  const view = buildChannelView(ctx.db, event.channel_id, event.message_ids, uids).catch(
    () => null, // judged again when the event arrives
  );
  return { uids: new Set(uids), view };
}

/**
 * The view of a channel event whose messages all start a thread, from what the post read at its
 * write (its messages, and the channel's members): each is in the channel, so every member sees
 * it, and there is no context to judge. Null when the write did not read the channel.
 */
function viewAsWritten(
  event: CommittedEvent & { channel_id: string },
  seen: WrittenForDelivery | undefined,
): AheadView | null {
  const members = seen?.channelMembers.get(event.channel_id);
  if (!members) return null;
  const nodes = new Map<string, ChannelViewNode>();
  for (const id of event.message_ids) {
    const message = seen!.messages.find((m) => m.id === id);
    if (!message || message.parent_id !== null) return null;
    const { content, author } = message;
    nodes.set(id, { id, content, parent_id: null, author, shared: true, viewers: new Set() });
  }
  const view: ChannelView = { members: [...members], nodes, ancestors: new Map() };
  return { uids: new Set(members), view: Promise.resolve(view) };
}

/** The view judged ahead for this event, once (the next batch of the same event judges afresh). */
function takeAheadView(ctx: AppContext, key: string): AheadView | undefined {
  const ahead = aheadViews.get(ctx);
  const found = ahead?.get(key);
  if (found) ahead!.delete(key);
  return found;
}

/** The event as `uid` sees it now, or null when it shows them nothing (or is internal). */
export function buildClientEvent(
  ctx: AppContext,
  uid: string,
  event: LoggedEvent,
): Promise<ClientEvent | null> {
  if (event.type === 'membership') return Promise.resolve(null);
  if (event.type === 'message.deleted') {
    return Promise.resolve({
      type: 'message.deleted',
      recipient_uid: uid,
      content: { message_ids: event.message_ids },
    });
  }
  let loader = loaders.get(ctx);
  if (!loader) {
    loader = new DataLoader((keys) => buildBatch(ctx, keys), {
      cache: false,
      // No cap: a channel event's listeners are judged in one batch, with the one view judged ahead
      // (split batches judged the channel again, each reading all its members: five statements
      // for a post to 10,000 members). buildPayloads splits what is judged per member.
      // Everything asked for in this turn of the event loop, not only this microtask's.
      batchScheduleFn: (callback) => setImmediate(callback),
    });
    loaders.set(ctx, loader);
  }
  return loader.load({ uid, event });
}

/** The event with its cursor, as sockets, subscriptions and GET /v1/notifications hand it out. */
export async function deliverEvent(
  ctx: AppContext,
  uid: string,
  event: LoggedEvent,
): Promise<DeliveredEvent | null> {
  const built = await buildClientEvent(ctx, uid, event);
  return built ? asDelivered(event, built) : null;
}

export function asDelivered(event: LoggedEvent, built: ClientEvent): DeliveredEvent {
  return { id: event.id, cursor: encodeCursor(event.seq), created_at: event.created_at, event: built };
}

/**
 * What a channel event shows a listener, as judged with the channel's other listeners: undefined
 * when the shared judgement cannot say (judge it on its own, buildClientEvent).
 */
export type SharedJudgement = ClientEvent | null | undefined;

interface ListenerGroup {
  uids: string[];
  settles: ((judged: SharedJudgement) => void)[];
}
const groups = new WeakMap<AppContext, Map<LoggedEvent, ListenerGroup>>();

/**
 * Judges a live channel event once for every listener that asks in this turn of the event loop
 * (the router passes one event object to all of them), then calls each listener's `settle` in
 * turn, synchronously, so that one feed's frame is written before the next one's is built.
 * Answers false for an event that is not judged this way. (Each feed awaiting its own payload ran
 * the feeds' promise chains a step at a time across all of them: a 10,000-member channel's frames
 * and their promises were all alive at once, and the collector promoted them, 2026-11-28.)
 */
export function judgeTogether(
  ctx: AppContext,
  event: LoggedEvent,
  uid: string,
  settle: (judged: SharedJudgement) => void,
): boolean {
  if (!judgedForChannel(event)) return false;
  let waiting = groups.get(ctx);
  if (!waiting) {
    waiting = new Map();
    groups.set(ctx, waiting);
  }
  let group = waiting.get(event);
  if (!group) {
    const created: ListenerGroup = { uids: [], settles: [] };
    waiting.set(event, created);
    setImmediate(() => {
      waiting.delete(event);
      void settleGroup(ctx, event, created);
    });
    group = created;
  }
  group.uids.push(uid);
  group.settles.push(settle);
  return true;
}

async function settleGroup(ctx: AppContext, event: LoggedEvent, group: ListenerGroup): Promise<void> {
  let judge: (uid: string) => SharedJudgement = () => undefined;
  // One listener is judged on its own (buildPayloads), as a batch of one would be.
  if (group.uids.length >= CHANNEL_VIEW_MIN) {
    try {
      judge = await judgeChannelEvent(ctx, event, group.uids);
    } catch (error) {
      // Each listener judges it on its own, which reports the failure to its consumer.
      ctx.log.warn({ err: error, event: event.id }, 'Judging a channel event for its listeners failed');
    }
  }
  for (let i = 0; i < group.uids.length; i++) {
    // A stretch at a time: between stretches the sockets' write callbacks run, and what the
    // stretch's frames held dies young (10,000 frames written in one stretch were promoted
    // together), and other requests get their turn.
    if (i > 0 && i % SETTLE_STRETCH === 0) await new Promise((resolve) => setImmediate(resolve));
    try {
      group.settles[i]!(judge(group.uids[i]!));
    } catch (error) {
      ctx.log.error({ err: error, event: event.id }, 'Handing out a channel event failed');
    }
  }
}

/** Listeners settled in one stretch of the event loop (settleGroup). */
const SETTLE_STRETCH = 256;

/**
 * A channel event judged once for the channel (everything public or in the channel is visible to
 * every member), with what each of `uids` sees: undefined for one it cannot judge that way (not a
 * member any more, not among those a view judged ahead was judged for, or a view the shared
 * judgement cannot give).
 */
async function judgeChannelEvent(
  ctx: AppContext,
  event: LoggedEvent,
  uids: string[],
): Promise<(uid: string) => SharedJudgement> {
  const aheadView = takeAheadView(ctx, channelKey(event));
  const judgedAhead = aheadView && (await aheadView.view);
  const view = judgedAhead ?? (await buildChannelView(ctx.db, event.channel_id!, event.message_ids, uids));
  const judgedFor = judgedAhead ? aheadView.uids : null;
  const members = new Set(view.members);
  const typical = typicalMemberView(view, event);
  return (uid) => {
    if (!members.has(uid) || (judgedFor !== null && !judgedFor.has(uid))) return undefined;
    return typical.covers(uid) ? typical.eventFor(uid) : fromChannelView(view, uid, event);
  };
}

/**
 * One change may reach a user through several streams (a message posted into two channels they
 * belong to): each message of a change and type is handed out once. An event whose messages were
 * all handed out already is passed over (null); one with some new is narrowed to those.
 *
 * The events of one change are numbered one after another (number-pending orders by change), so a
 * few recent channel events are memory enough. It holds the shared event objects themselves: a feed
 * of a 10,000-member channel allocates nothing here per event (a set of key strings per feed was a
 * good part of the fan-out's garbage and of its live heap, 2026-11-26).
 */
export class ChangeFilter {
  /** The last channel events handed out (or narrowed), oldest overwritten first. */
  private readonly recent: (LoggedEvent | undefined)[];
  private next = 0;

  constructor(capacity = 16) {
    this.recent = new Array<LoggedEvent | undefined>(capacity);
  }

  unseenPart(event: LoggedEvent): LoggedEvent | null {
    if (event.channel_id === null) return event;
    let shown: Set<string> | undefined;
    for (const earlier of this.recent) {
      if (earlier?.change_id !== event.change_id || earlier.type !== event.type) continue;
      shown ??= new Set();
      for (const id of earlier.message_ids) shown.add(id);
    }
    const fresh = shown ? event.message_ids.filter((id) => !shown.has(id)) : event.message_ids;
    if (fresh.length === 0) return null;
    const handed = fresh.length === event.message_ids.length ? event : { ...event, message_ids: fresh };
    this.recent[this.next] = handed;
    this.next = (this.next + 1) % this.recent.length;
    return handed;
  }
}

/** A channel event asked for by at least this many members at once is judged for the channel. */
const CHANNEL_VIEW_MIN = 2;

async function buildBatch(ctx: AppContext, keys: readonly PayloadKey[]): Promise<(ClientEvent | null)[]> {
  const results: (ClientEvent | null | undefined)[] = keys.map(() => undefined);
  const byChannelEvent = new Map<string, number[]>();
  keys.forEach(({ event }, index) => {
    if (event.channel_id === null) return;
    // Keyed by messages too: an event narrowed for one member (ChangeFilter) is judged apart.
    const key = channelKey(event);
    const indexes = byChannelEvent.get(key);
    if (indexes) indexes.push(index);
    else byChannelEvent.set(key, [index]);
  });
  await Promise.all(
    [...byChannelEvent]
      .filter(([, indexes]) => indexes.length >= CHANNEL_VIEW_MIN)
      .map(async ([, indexes]) => {
        const judge = await judgeChannelEvent(
          ctx,
          keys[indexes[0]!]!.event,
          indexes.map((i) => keys[i]!.uid),
        );
        // Undefined (the shared judgement cannot say) stays for buildPayloads below.
        for (const i of indexes) results[i] = judge(keys[i]!.uid);
      }),
  );
  const rest = keys.flatMap((key, index) => (results[index] === undefined ? [{ key, index }] : []));
  const built = await buildPayloads(
    ctx.db,
    rest.map(({ key: { uid, event }, index }) => ({
      key: index,
      uid,
      message_ids: event.message_ids,
      include_own: includesOwn(event),
      with_context: event.type !== 'message.updated',
    })),
  );
  for (const payload of built) {
    const { uid, event } = keys[payload.key]!;
    results[payload.key] =
      payload.messages.length === 0 ? null : toClientEvent(uid, event, payload.messages, payload.context);
  }
  return results.map((result) => result ?? null);
}

/** A ping may be about one's own message; an update to it is news too. */
function includesOwn(event: LoggedEvent): boolean {
  return event.type === 'ping' || event.type === 'message.updated';
}

function toClientEvent(
  uid: string,
  event: LoggedEvent,
  messages: EventMessage[],
  context: EventMessage[],
): ClientEvent | null {
  if (event.type === 'message.updated')
    return {
      type: 'message.updated',
      recipient_uid: uid,
      content: { messages, context, changes: event.changes },
    };
  if (event.type === 'message.deleted' || event.type === 'membership') return null;
  return { type: event.type, recipient_uid: uid, content: { messages, context } };
}

/**
 * When every node of the view is shared, every member who wrote none of the event's messages sees
 * the same event but for recipient_uid: it is built once, and its content is one frozen object that
 * all their events share (the socket serialises it once, websocket-notifications.ts). A channel of
 * 10,000 members otherwise built 10,000 equal copies.
 */
function typicalMemberView(
  view: ChannelView,
  event: LoggedEvent,
): { covers(uid: string): boolean; eventFor(uid: string): ClientEvent | null } {
  const allShared = [...view.nodes.values()].every((node) => node.shared);
  const authors = new Set(event.message_ids.map((id) => view.nodes.get(id)?.author.uid));
  // Judged for nobody in particular (no user has the empty uid), which is every such member.
  const typical = allShared ? fromChannelView(view, '', event) : undefined;
  if (typical) deepFreeze(typical.content);
  return {
    covers: (uid) => typical !== undefined && !authors.has(uid),
    eventFor: (uid) => (typical ? { ...typical, recipient_uid: uid } : null),
  };
}

function deepFreeze(value: object): void {
  for (const inner of Object.values(value))
    if (inner && typeof inner === 'object') deepFreeze(inner as object);
  Object.freeze(value);
}

/**
 * The event as one member sees it, from the channel's view; null when it shows them nothing, and
 * undefined when their first visible message is not the event's first (their context would be
 * another message's ancestors: rare, judged on its own).
 */
function fromChannelView(view: ChannelView, uid: string, event: LoggedEvent): ClientEvent | null | undefined {
  const sees = (id: string | null): boolean => {
    const node = id === null ? undefined : view.nodes.get(id);
    return node !== undefined && (node.shared || node.viewers.has(uid));
  };
  const shown = (id: string): EventMessage => {
    const node = view.nodes.get(id)!;
    return {
      id: node.id,
      content: node.content,
      parent_id: sees(node.parent_id) ? node.parent_id : null,
      author: node.author,
    };
  };
  const messages = event.message_ids
    .filter((id) => sees(id) && (includesOwn(event) || view.nodes.get(id)!.author.uid !== uid))
    .map(shown);
  if (messages.length === 0) return null;
  if (messages[0]!.id !== event.message_ids[0]) return undefined;
  const context =
    event.type === 'message.updated'
      ? []
      : [...view.ancestors]
          .filter(([id, distance]) => distance <= 10 && sees(id) && !event.message_ids.includes(id))
          .sort((a, b) => b[1] - a[1])
          .map(([id]) => shown(id));
  return toClientEvent(uid, event, messages, context);
}
