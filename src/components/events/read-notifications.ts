// GET /v1/notifications: the caller's events after a cursor, for clients that poll or that check
// what a socket missed; the same events, cursors and payloads as the socket's replay, built from
// the graph now (a message deleted or hidden since is not handed out).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { decodeCursor, encodeCursor } from '../event-log/event-log.js';
import { listEventsForUser, readHead } from '../event-log/event-log-repository.js';
import { eventBytes, withinBudget } from './event-budget.js';
import { ChangeFilter, deliverEvent } from './event-payloads.js';
import type { DeliveredEvent } from './notification-event.js';

export async function readNotifications(
  ctx: AppContext,
  caller: Caller,
  query: { since?: string | undefined; limit: number },
): Promise<{ notifications: DeliveredEvent[]; cursor: string; has_more: boolean }> {
  assertScope(caller, 'messages.read');
  const after = query.since === undefined ? 0 : decodeCursor(query.since);
  // Up to the log's head: every event up to it is numbered and readable, so the answer's cursor
  // never skips one that is numbered later with a smaller position.
  const upto = await readHead(ctx.db);
  const page = await listEventsForUser(ctx.db, caller.uid, after, upto, query.limit + 1);
  const shown = page.slice(0, query.limit);
  const changes = new ChangeFilter();
  const built = await Promise.all(
    shown.map((event) => {
      const unseen = changes.unseenPart(event);
      return unseen ? deliverEvent(ctx, caller.uid, unseen) : Promise.resolve(null);
    }),
  );
  // Each event within the event budget, and the page within a few of them: a page that would pass
  // it ends early (its cursor after the last event it holds, has_more true), but never before its
  // first event, so a client paging on from any cursor always makes progress.
  const budget = ctx.config.realtime.eventMaxBytes;
  const notifications: DeliveredEvent[] = [];
  let bytes = 0;
  let end = shown.length;
  for (let i = 0; i < shown.length; i++) {
    const delivered = built[i];
    if (!delivered) continue;
    const fitted = { ...delivered, event: withinBudget(delivered.event, budget) };
    bytes += eventBytes(fitted.event);
    if (notifications.length > 0 && bytes > PAGE_BUDGET_EVENTS * budget) {
      end = i;
      break;
    }
    notifications.push(fitted);
  }
  const cutShort = end < shown.length;
  const more = cutShort || page.length > query.limit;
  const last = more ? shown[end - 1]!.seq : Math.max(after, upto);
  return { notifications, cursor: encodeCursor(last), has_more: more };
}

/** A page of notifications holds at most this many events' budgets of JSON. */
const PAGE_BUDGET_EVENTS = 4;
