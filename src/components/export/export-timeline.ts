// GET /v1/messages/timeline/export: the timeline since a cutoff as JSON bundles, each bounded in
// messages and in content characters; `next_skip` continues a truncated export.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import type { MessageOutput } from '../messages/messages.schemas.js';
import { channelFilterOf } from '../threads/view-page.js';
import { exportCutoff } from './export-cutoff.js';
import { pageIds, timelinePage } from '../threads/threads-repository.js';
import {
  EXPORT_MAX_CONTENT_CHARS,
  EXPORT_MAX_MESSAGES,
  type TimelineExport,
  type TimelineExportQuery,
} from './export.schemas.js';

/** Ids hydrated per query: keeps each hydration's row set (and content) small however large the bundle. */
const HYDRATE_CHUNK = 100;

export async function exportTimeline(
  ctx: AppContext,
  caller: Caller,
  query: TimelineExportQuery,
  now: Date = new Date(),
): Promise<TimelineExport> {
  assertScope(caller, 'messages.read');
  const channelId = await channelFilterOf(ctx, caller, query.channel_id);
  const days = query.days ?? null;
  const cutoff = exportCutoff(now, days);
  // The timeline's own query, bounded below by the cutoff; one more than the cap tells truncation.
  const ids = await pageIds(
    ctx.db,
    timelinePage(caller.uid, channelId, { skip: query.skip, limit: EXPORT_MAX_MESSAGES }, cutoff),
  );
  const kept = ids.slice(0, EXPORT_MAX_MESSAGES);
  const messages: MessageOutput[] = [];
  // Ids looked at, in order: the next part starts after them.
  let consumed = 0;
  let chars = 0;
  let full = false;
  for (let start = 0; start < kept.length && !full; start += HYDRATE_CHUNK) {
    const chunk = kept.slice(start, start + HYDRATE_CHUNK);
    // hydrateMessages drops a message deleted since the ids were read; the bundle stays consistent.
    const hydrated = new Map(
      (await hydrateMessages(ctx.db, { uid: caller.uid }, chunk, ctx.config.publicUrl)).map((message) => [
        message.id,
        message,
      ]),
    );
    for (const id of chunk) {
      const message = hydrated.get(id);
      if (message) {
        if (messages.length > 0 && chars + message.content.length > EXPORT_MAX_CONTENT_CHARS) {
          full = true;
          break;
        }
        chars += message.content.length;
        messages.push(message);
      }
      consumed++;
    }
  }
  const truncated = consumed < ids.length;
  return {
    exported_at: now.toISOString(),
    cutoff: cutoff.toISOString(),
    days,
    channel_id: channelId,
    count: messages.length,
    skip: query.skip,
    truncated,
    next_skip: truncated ? query.skip + consumed : null,
    messages,
  };
}
