// The one conversion of hydrated message rows (cypher/fragments/hydrated-message.cypher) into the API's
// MessageOutput: neighbour ids keep only those the viewer may see, ordered as the API promises.
// The query judged every listed neighbour outside the hydrated ids, and named the parents and roots
// that are not rows themselves and that the viewer may see (visible_lineage); a neighbour among the
// hydrated ids is visible exactly when it came back as a row of its own. root_id follows the rule of
// cypher/fragments/shown-root.cypher from those judgments, with the walked tops (visible_tops) for the
// rows whose parent the viewer sees and whose stored root it does not.
import type { MessageOutput, ReactionCount } from './messages.schemas.js';

/**
 * A hydrated message row, by position (cypher/fragments/hydrated-message.cypher builds it in this
 * order; positions decode cheaper than maps, which the fragment's header explains).
 */
export type HydratedRow = [
  message: HydratedMessage,
  author: [uid: string, user_tag: string],
  /** Unjudged: the answer's visible_lineage says whether the viewer may see it. */
  parent_id: string | null,
  /** Unjudged, as parent_id. */
  root_id: string | null,
  recipients: HydratedRecipient[],
  replies: Neighbour[],
  stitch_parents: Neighbour[],
  stitch_children: Neighbour[],
  channel_ids: string[],
  attachments: HydratedAttachment[],
  is_saved: boolean,
  reactions: HydratedReaction[],
];

type HydratedMessage = [
  id: string,
  content: string,
  subject: string | null,
  is_public: boolean,
  tags: string[] | null,
  reply_order: string[] | null,
  default_outgoing: string | null,
  import_info_json: string | null,
  created_ms: number,
  /** Null when the content was never edited. */
  edited_ms: number | null,
  /** How a streamed reply ended (live/write-stream.ts); null for a plain post. */
  stream_json: string | null,
];

type HydratedRecipient = [
  uid: string,
  user_tag: string,
  is_public: boolean,
  added_by: string | null,
  read_ms: number | null,
  added_ms: number | null,
];

type HydratedAttachment = [
  file_id: string,
  filename: string,
  content_type: string,
  size: number,
  sha256: string,
  position: number,
];

type HydratedReaction = [reaction: string, count: number, first_ms: number, me: boolean];

/** A reaction as the queries count it: its shown reactors and its first use (epoch ms). */
export interface CountedReaction extends ReactionCount {
  first_ms: number;
}

/** The order reactions are answered in: most used first, then the one used first. */
export function byUseThenFirstUse(a: CountedReaction, b: CountedReaction): number {
  return (
    b.count - a.count ||
    a.first_ms - b.first_ms ||
    (a.reaction < b.reaction ? -1 : a.reaction > b.reaction ? 1 : 0)
  );
}

/** A neighbour as the query lists it: [id, created_at as epoch ms]. */
type Neighbour = [id: string, created_ms: number];

const isoOf = (ms: number) => new Date(ms).toISOString();

/** Whether the viewer may see a neighbour the query returned (see the header). */
type Visible = (id: string) => boolean;

/** What the viewer may see of a row's neighbours: those listed, and its parent and root. */
interface Sight {
  listed: Visible;
  lineage: Visible;
  /** The topmost ancestor reached through visible parents, for the rows the query walked up from. */
  top: (id: string) => string | undefined;
}

/**
 * The root a row shows (cypher/fragments/shown-root.cypher): its own id when the viewer sees it as
 * a root (no parent, or one it may not see), as a real root shows; else the stored root when
 * visible; else the top the query walked up to. Never null, so that it tells nothing of a hidden
 * ancestor.
 */
function shownRoot(id: string, shownParentId: string | null, rootId: string | null, sight: Sight): string {
  if (shownParentId === null) return id;
  if (rootId !== null && sight.lineage(rootId)) return rootId;
  return sight.top(id) ?? id;
}

/** Visible neighbour ids, oldest first (ties by id), each once. */
function visibleIds(neighbours: Neighbour[], visible: Visible): string[] {
  const kept = new Map<string, number>();
  for (const [id, createdMs] of neighbours) if (visible(id)) kept.set(id, createdMs);
  return [...kept]
    .sort(([idA, a], [idB, b]) => a - b || (idA < idB ? -1 : idA > idB ? 1 : 0))
    .map(([id]) => id);
}

/** Oldest edge first (an edge without a time last, as Cypher orders nulls), ties by uid. */
const byAddedThenUid = (
  [uidA, , , , , addedA]: HydratedRecipient,
  [uidB, , , , , addedB]: HydratedRecipient,
) =>
  (addedA ?? Number.MAX_SAFE_INTEGER) - (addedB ?? Number.MAX_SAFE_INTEGER) ||
  (uidA < uidB ? -1 : uidA > uidB ? 1 : 0);

function toMessageOutput(row: HydratedRow, sight: Sight, publicUrl: string): MessageOutput {
  const [
    message,
    [authorUid, authorTag],
    parentId,
    rootId,
    recipients,
    replies,
    stitchParents,
    stitchChildren,
    channelIds,
    attachments,
    isSaved,
    reactions,
  ] = row;
  const [
    id,
    content,
    subject,
    isPublic,
    tags,
    replyOrder,
    defaultOutgoing,
    importInfoJson,
    createdMs,
    editedMs,
    streamJson,
  ] = message;
  const replyIds = visibleIds(replies, sight.listed);
  const stitchChildIds = visibleIds(stitchChildren, sight.listed);
  // reply_order and default_outgoing name children; a child deleted or invisible drops out.
  const children = new Set([...replyIds, ...stitchChildIds]);
  const shownParentId = parentId !== null && sight.lineage(parentId) ? parentId : null;
  return {
    id,
    content,
    subject,
    public: isPublic,
    timestamp: isoOf(createdMs),
    edited_at: editedMs === null ? null : isoOf(editedMs),
    author: { uid: authorUid, user_tag: authorTag },
    parent_id: shownParentId,
    root_id: shownRoot(id, shownParentId, rootId, sight),
    recipients: [...recipients]
      .sort(byAddedThenUid)
      .map(([uid, userTag, recipientPublic, addedBy, readMs]) => ({
        uid,
        user_tag: userTag,
        public: recipientPublic,
        added_by: addedBy,
        read_at: readMs === null ? null : isoOf(readMs),
      })),
    tags: tags ?? [],
    attachments: [...attachments]
      .sort((a, b) => a[5] - b[5])
      .map(([fileId, filename, contentType, size, sha256]) => ({
        file_id: fileId,
        filename,
        content_type: contentType,
        size,
        sha256,
        url: `${publicUrl}/v1/files/${fileId}`,
      })),
    reply_order: replyOrder === null ? null : replyOrder.filter((child) => children.has(child)),
    default_outgoing: defaultOutgoing !== null && children.has(defaultOutgoing) ? defaultOutgoing : null,
    reply_ids: replyIds,
    stitch_parent_ids: visibleIds(stitchParents, sight.listed),
    stitch_child_ids: stitchChildIds,
    channel_ids: [...channelIds].sort(),
    import_info: importInfoJson ? (JSON.parse(importInfoJson) as Record<string, unknown>) : null,
    stream: streamJson ? (JSON.parse(streamJson) as MessageOutput['stream']) : null,
    is_saved: isSaved,
    reactions: reactions
      .map(([reaction, count, firstMs, me]) => ({ reaction, count, first_ms: firstMs, me }))
      .sort(byUseThenFirstUse)
      .map(({ reaction, count, me }) => ({ reaction, count, me })),
  };
}

/**
 * A hydrate answer: hydrate.cypher's record, or write-post.cypher's `written`, `visible_lineage`
 * and `visible_tops`.
 */
export interface HydrateAnswer {
  rows: HydratedRow[];
  /** The parents and roots that are not rows themselves and that the viewer may see. */
  visibleLineage: string[];
  /** [row id, top id] for the rows whose parent the viewer sees and whose stored root it does not. */
  visibleTops: [id: string, top: string][];
}

/** Every message of a hydrate answer for `requested` ids, keyed by id. */
export function messagesOfHydrateAnswer(
  answer: HydrateAnswer,
  requested: readonly string[],
  publicUrl: string,
): Map<string, MessageOutput> {
  const returned = new Set(answer.rows.map(([[id]]) => id));
  const asked = new Set(requested);
  const lineage = new Set(answer.visibleLineage);
  const tops = new Map(answer.visibleTops);
  const sight: Sight = {
    listed: (id) => returned.has(id) || !asked.has(id),
    lineage: (id) => returned.has(id) || lineage.has(id),
    top: (id) => tops.get(id),
  };
  return new Map(answer.rows.map((row) => [row[0][0], toMessageOutput(row, sight, publicUrl)]));
}
