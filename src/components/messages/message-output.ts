// The one conversion of a hydrated message row into the API's MessageOutput.
import type { Row } from '../../platform/neo4j/database.js';
import type { MessageOutput } from './messages.schemas.js';

interface HydratedMessage {
  id: string;
  content: string;
  subject: string | null;
  public: boolean;
  created_at: string;
  tags: string[] | null;
  reply_order: string[] | null;
  default_outgoing: string | null;
  import_info_json: string | null;
}

export function toMessageOutput(row: Row, publicUrl: string): MessageOutput {
  const m = row.message as HydratedMessage;
  const replyIds = row.reply_ids as string[];
  const stitchChildIds = row.stitch_child_ids as string[];
  // reply_order and default_outgoing name children; a child deleted or invisible drops out.
  const children = new Set([...replyIds, ...stitchChildIds]);
  const attachments = (row.attachments as Omit<MessageOutput['attachments'][number], 'url'>[]).map(
    (file) => ({
      ...file,
      url: `${publicUrl}/v1/files/${file.file_id}`,
    }),
  );
  return {
    id: m.id,
    content: m.content,
    subject: m.subject,
    public: m.public,
    timestamp: m.created_at,
    author: row.author as MessageOutput['author'],
    parent_id: row.parent_id as string | null,
    root_id: row.root_id as string | null,
    recipients: (row.recipients as (MessageOutput['recipients'][number] | null)[]).filter((r) => r !== null),
    tags: m.tags ?? [],
    attachments,
    reply_order: m.reply_order === null ? null : m.reply_order.filter((id) => children.has(id)),
    default_outgoing:
      m.default_outgoing !== null && children.has(m.default_outgoing) ? m.default_outgoing : null,
    reply_ids: replyIds,
    stitch_parent_ids: row.stitch_parent_ids as string[],
    stitch_child_ids: stitchChildIds,
    channel_ids: row.channel_ids as string[],
    import_info: m.import_info_json ? (JSON.parse(m.import_info_json) as Record<string, unknown>) : null,
    is_saved: row.is_saved === true,
  };
}
