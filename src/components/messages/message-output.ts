// The one conversion of hydrated message rows (cypher/fragments/hydrated-message.cypher) into the API's
// MessageOutput: neighbour ids keep only those the viewer may see, ordered as the API promises.
// The query judged every neighbour outside the hydrated ids; one inside them is visible exactly
// when it came back as a row of its own.
import type { MessageOutput, ReactionCount } from './messages.schemas.js';

interface HydratedMessage {
  id: string;
  content: string;
  subject: string | null;
  public: boolean;
  created_ms: number;
  /** Null when the content was never edited. */
  edited_ms: number | null;
  tags: string[] | null;
  reply_order: string[] | null;
  default_outgoing: string | null;
  import_info_json: string | null;
}

interface HydratedRecipient {
  uid: string;
  user_tag: string;
  public: boolean;
  added_by: string | null;
  read_ms: number | null;
  added_ms: number | null;
}

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
type Neighbour = [string, number];

export interface HydratedRow {
  message: HydratedMessage;
  author: MessageOutput['author'];
  parent_id: string | null;
  root_id: string | null;
  recipients: HydratedRecipient[];
  replies: Neighbour[];
  stitch_parents: Neighbour[];
  stitch_children: Neighbour[];
  channel_ids: string[];
  attachments: (Omit<MessageOutput['attachments'][number], 'url'> & { position: number })[];
  is_saved: boolean;
  reactions: CountedReaction[];
}

const isoOf = (ms: number) => new Date(ms).toISOString();

/** Whether the viewer may see a neighbour the query returned (see the header). */
type Visible = (id: string) => boolean;

/** Visible neighbour ids, oldest first (ties by id), each once. */
function visibleIds(neighbours: Neighbour[], visible: Visible): string[] {
  const kept = new Map<string, number>();
  for (const [id, createdMs] of neighbours) if (visible(id)) kept.set(id, createdMs);
  return [...kept]
    .sort(([idA, a], [idB, b]) => a - b || (idA < idB ? -1 : idA > idB ? 1 : 0))
    .map(([id]) => id);
}

/** Oldest edge first (an edge without a time last, as Cypher orders nulls), ties by uid. */
const byAddedThenUid = (a: HydratedRecipient, b: HydratedRecipient) =>
  (a.added_ms ?? Number.MAX_SAFE_INTEGER) - (b.added_ms ?? Number.MAX_SAFE_INTEGER) ||
  (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

export function toMessageOutput(row: HydratedRow, visible: Visible, publicUrl: string): MessageOutput {
  const m = row.message;
  const replyIds = visibleIds(row.replies, visible);
  const stitchChildIds = visibleIds(row.stitch_children, visible);
  // reply_order and default_outgoing name children; a child deleted or invisible drops out.
  const children = new Set([...replyIds, ...stitchChildIds]);
  return {
    id: m.id,
    content: m.content,
    subject: m.subject,
    public: m.public,
    timestamp: isoOf(m.created_ms),
    edited_at: m.edited_ms === null ? null : isoOf(m.edited_ms),
    author: row.author,
    parent_id: row.parent_id !== null && visible(row.parent_id) ? row.parent_id : null,
    root_id: row.root_id !== null && visible(row.root_id) ? row.root_id : null,
    recipients: [...row.recipients].sort(byAddedThenUid).map((r) => ({
      uid: r.uid,
      user_tag: r.user_tag,
      public: r.public,
      added_by: r.added_by,
      read_at: r.read_ms === null ? null : isoOf(r.read_ms),
    })),
    tags: m.tags ?? [],
    attachments: [...row.attachments]
      .sort((a, b) => a.position - b.position)
      .map(({ position: _position, ...file }) => ({ ...file, url: `${publicUrl}/v1/files/${file.file_id}` })),
    reply_order: m.reply_order === null ? null : m.reply_order.filter((id) => children.has(id)),
    default_outgoing:
      m.default_outgoing !== null && children.has(m.default_outgoing) ? m.default_outgoing : null,
    reply_ids: replyIds,
    stitch_parent_ids: visibleIds(row.stitch_parents, visible),
    stitch_child_ids: stitchChildIds,
    channel_ids: [...row.channel_ids].sort(),
    import_info: m.import_info_json ? (JSON.parse(m.import_info_json) as Record<string, unknown>) : null,
    is_saved: row.is_saved,
    reactions: [...row.reactions]
      .sort(byUseThenFirstUse)
      .map(({ reaction, count, me }) => ({ reaction, count, me })),
  };
}

/**
 * Every message of a hydrate answer for `requested` ids (the `row` column of hydrate.cypher, or the
 * rows write-post.cypher answers with), keyed by id.
 */
export function messagesOfHydrateAnswer(
  hydrated: HydratedRow[],
  requested: readonly string[],
  publicUrl: string,
): Map<string, MessageOutput> {
  const returned = new Set(hydrated.map((row) => row.message.id));
  const asked = new Set(requested);
  const visible: Visible = (id) => returned.has(id) || !asked.has(id);
  return new Map(hydrated.map((row) => [row.message.id, toMessageOutput(row, visible, publicUrl)]));
}
