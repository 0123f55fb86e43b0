// GET /v1/admin/metrics/messages-per-day: how many messages each author wrote per UTC day.
// Counts, not content: an admin sees the numbers for every message, visible to them or not.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { countMessagesPerDay } from './metrics-repository.js';
import type { DayCount, MessagesPerDayQuery } from './metrics.schemas.js';

export async function readMessagesPerDay(
  ctx: AppContext,
  caller: Caller,
  query: MessagesPerDayQuery,
): Promise<DayCount[]> {
  assertScope(caller, 'admin');
  const rows = await countMessagesPerDay(
    ctx.db,
    { from_date: query.from_date ?? null, to_date: query.to_date ?? null },
    query.limit,
  );
  return rows.map((row) => ({
    date: row.date,
    author: { uid: row.uid, user_tag: row.user_tag },
    count: row.count,
  }));
}
