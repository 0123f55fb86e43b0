// What a logged event shows one recipient, built from the graph at the moment it is handed out
// (socket frame, subscription, GET /v1/notifications, webhook body, delivery log). A message that
// was deleted, or that the recipient can no longer see, is left out; an event left with nothing to
// show is not handed out at all (null).
//
// Requests made in the same turn of the event loop are built in one query: when a channel event
// reaches a thousand open sockets on this instance, their thousand payloads are one round trip.
import DataLoader from 'dataloader';
import type { AppContext } from '../../platform/context.js';
import { encodeCursor, type LoggedEvent } from '../event-log/event-log.js';
import { buildPayloads } from './events-repository.js';
import type { ClientEvent, DeliveredEvent } from './notification-event.js';

interface PayloadKey {
  uid: string;
  event: LoggedEvent;
}

const loaders = new WeakMap<AppContext, DataLoader<PayloadKey, ClientEvent | null>>();

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
      maxBatchSize: 2000,
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
  if (!built) return null;
  return { id: event.id, cursor: encodeCursor(event.seq), created_at: event.created_at, event: built };
}

/**
 * One change may reach a user through several streams (a message posted into two channels they
 * belong to): the first event of a change and type is handed out, the rest are passed over.
 */
export class ChangeFilter {
  private readonly seen = new Set<string>();

  constructor(private readonly capacity = 1000) {}

  firstOfChange(event: LoggedEvent): boolean {
    if (event.channel_id === null) return true;
    const key = `${event.change_id}|${event.type}`;
    if (this.seen.has(key)) return false;
    // Changes are recent when they repeat (their events are numbered together): a short memory does.
    if (this.seen.size >= this.capacity) this.seen.clear();
    this.seen.add(key);
    return true;
  }
}

async function buildBatch(ctx: AppContext, keys: readonly PayloadKey[]): Promise<(ClientEvent | null)[]> {
  const built = await buildPayloads(
    ctx.db,
    keys.map(({ uid, event }, key) => ({
      key,
      uid,
      message_ids: event.message_ids,
      // A ping may be about one's own message; an update to it is news too.
      include_own: event.type === 'ping' || event.type === 'message.updated',
      with_context: event.type !== 'message.updated',
    })),
  );
  const byKey = new Map(built.map((payload) => [payload.key, payload]));
  return keys.map(({ uid, event }, key): ClientEvent | null => {
    const payload = byKey.get(key);
    if (!payload || payload.messages.length === 0) return null;
    const content = { messages: payload.messages, context: payload.context };
    if (event.type === 'message.updated')
      return { type: 'message.updated', recipient_uid: uid, content: { ...content, changes: event.changes } };
    if (event.type === 'message.deleted' || event.type === 'membership') return null;
    return { type: event.type, recipient_uid: uid, content };
  });
}
