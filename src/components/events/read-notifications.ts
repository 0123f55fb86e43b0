// GET /v1/notifications: the caller's events after a cursor, for clients that poll or that check
// what a socket missed; the same events, cursors and payloads as the socket's replay, built from
// the graph now (a message deleted or hidden since is not handed out).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { decodeCursor, encodeCursor, type LoggedEvent } from '../event-log/event-log.js';
import { listEventsForUser, readHead } from '../event-log/event-log-repository.js';
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
  const delivered = await Promise.all(
    shown
      .map((event) => changes.unseenPart(event))
      .filter((event): event is LoggedEvent => event !== null)
      .map((event) => deliverEvent(ctx, caller.uid, event)),
  );
  const last = page.length > query.limit ? shown[shown.length - 1]!.seq : Math.max(after, upto);
  return {
    notifications: delivered.filter((d): d is DeliveredEvent => d !== null),
    cursor: encodeCursor(last),
    has_more: page.length > query.limit,
  };
}
