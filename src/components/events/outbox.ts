// The notification outbox. Use cases that change who should hear about a message call
// recordNotifications inside their write transaction, so a notification exists exactly when the
// change committed (nothing is lost on a crash after commit, nothing is sent for a rolled-back
// change); webhook deliveries are created in the same transaction. After commit they call
// publishCommitted, which hands the stored notifications to live listeners.
//
// Choosing recipients is a security decision, made in two places only: the planners below decide
// who is told about what, and build-payloads.cypher re-checks, per recipient, that every message
// and every context ancestor is one that recipient can see (the one visibility rule).
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/neo4j/database.js';
import { createDeliveries } from '../webhooks/webhooks-repository.js';
import type { EventType, PlannedNotification, StoredNotification } from './notification-event.js';
import { buildPayloads, findChannelAudience, insertNotifications } from './outbox-repository.js';

export { latestSeq, listNotificationsSince } from './outbox-repository.js';

export async function recordNotifications(
  tx: Tx,
  planned: PlannedNotification[],
): Promise<StoredNotification[]> {
  const wanted = planned.filter((p) => p.message_ids.length > 0);
  if (wanted.length === 0) return [];
  const payloads = await buildPayloads(
    tx,
    wanted.map((p, key) => ({ key, uid: p.uid, type: p.type, message_ids: p.message_ids })),
  );
  const createdAt = new Date().toISOString();
  // In planning order, so a user told twice by one change gets the numbers in that order.
  const drafts = [...payloads]
    .sort((a, b) => a.key - b.key)
    .map(({ key, messages, context }) => {
      const { uid, type } = wanted[key]!;
      return {
        id: randomUUID(),
        uid,
        created_at: createdAt,
        event: { type, recipient_uid: uid, content: { messages, context } },
      };
    });
  const seqs = await insertNotifications(
    tx,
    drafts.map((d) => ({
      id: d.id,
      uid: d.uid,
      type: d.event.type,
      payload: JSON.stringify(d.event),
      created_at: d.created_at,
    })),
  );
  const stored = drafts.map((d) => ({ ...d, seq: seqs.get(d.id)! }));
  await createDeliveries(tx, stored);
  return stored;
}

/** Hands committed notifications to listeners; a failure here loses nothing (the outbox has them). */
export async function publishCommitted(ctx: AppContext, stored: StoredNotification[]): Promise<void> {
  if (stored.length === 0) return;
  try {
    await ctx.events.publish(stored);
  } catch (error) {
    ctx.log.warn(
      { err: error, count: stored.length },
      'Publishing notifications failed; clients catch up by seq',
    );
  }
}

/**
 * One notification per user of one type, batching that user's messages in the order given. The
 * actor never hears about their own action.
 */
export function groupByUser(
  type: EventType,
  pairs: { uid: string; message_id: string }[],
  actorUid: string,
): PlannedNotification[] {
  const byUid = new Map<string, string[]>();
  for (const { uid, message_id } of pairs) {
    if (uid === actorUid) continue;
    const ids = byUid.get(uid) ?? [];
    if (!ids.includes(message_id)) ids.push(message_id);
    byUid.set(uid, ids);
  }
  return [...byUid].map(([uid, message_ids]) => ({ uid, type, message_ids }));
}

/**
 * `channels` events for messages just included in channels: every member of those channels except
 * the actor and users already told about that message by another event of the same change.
 */
export async function planChannelNotifications(
  tx: Tx,
  actorUid: string,
  inclusions: { message_id: string; channel_id: string }[],
  alreadyTold: { uid: string; message_id: string }[] = [],
): Promise<PlannedNotification[]> {
  const told = new Set(alreadyTold.map((p) => `${p.uid}/${p.message_id}`));
  const audience = await findChannelAudience(tx, inclusions);
  const order = inclusions.map((i) => i.message_id);
  audience.sort((a, b) => order.indexOf(a.message_id) - order.indexOf(b.message_id));
  return groupByUser(
    'channels',
    audience.filter((p) => !told.has(`${p.uid}/${p.message_id}`)),
    actorUid,
  );
}
