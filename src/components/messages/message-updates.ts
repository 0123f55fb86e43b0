// The one way an edit of existing messages runs: in one write transaction that also records
// `message.updated` for everyone who sees the changed messages (authors, recipients, channel
// members), announced after the commit.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/neo4j/database.js';
import type { MessageChange } from '../event-log/event-log.js';
import { announceEvents, recordMessageChange } from '../event-log/record-events.js';

export async function editMessages<T>(
  ctx: AppContext,
  caller: Caller,
  change: MessageChange,
  work: (tx: Tx) => Promise<{ result: T; changed: string[] }>,
): Promise<T> {
  const result = await ctx.db.inWrite(async (tx) => {
    const done = await work(tx);
    await recordMessageChange(tx, caller.uid, 'message.updated', done.changed, [change]);
    return done.result;
  });
  await announceEvents(ctx);
  return result;
}
