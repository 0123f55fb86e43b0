// Sparse answers: `fields=id,content,author,parent_id,timestamp` on the list and traverse endpoints
// keeps only those keys of each message (`id` always), so a client showing a thread neither pays for
// nor receives what it never reads. When no asked field needs the message's links (recipients,
// replies, stitches, channels, attachments, saved state, reactions), hydration skips reading them at
// all (cypher/messages/hydrate-core.cypher), which is where most of a page's time went.
import { z } from '../../platform/openapi.js';
import { MessageOutput } from './messages.schemas.js';

export type MessageField = keyof MessageOutput;
export const MESSAGE_FIELDS = Object.keys(MessageOutput.shape) as MessageField[];

/** Fields that only the full hydration can answer. */
export const LINK_FIELDS = new Set<string>([
  'recipients',
  'attachments',
  'reply_order',
  'default_outgoing',
  'reply_ids',
  'stitch_parent_ids',
  'stitch_child_ids',
  'channel_ids',
  'is_saved',
  'reactions',
]);

/** A set of field names, or null for the whole message. */
export type FieldSelection = ReadonlySet<string> | null;

/**
 * The `fields` query parameter: comma-separated names of MessageOutput keys (plus `extra`, names an
 * endpoint adds to each message, such as traverse's `replies`). Unknown names are a 422.
 */
export function fieldsQuery(extra: readonly string[] = []) {
  const allowed = new Set<string>([...MESSAGE_FIELDS, ...extra]);
  const names = [...allowed].join(', ');
  return z
    .string()
    .max(1000)
    .transform((text, ctx) => {
      const asked = text
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      const unknown = asked.filter((name) => !allowed.has(name));
      if (unknown.length > 0) {
        ctx.addIssue({ code: 'custom', message: `Unknown field(s) ${unknown.join(', ')}; known: ${names}.` });
        return z.NEVER;
      }
      const selection: ReadonlySet<string> = new Set(['id', ...asked]);
      return selection;
    })
    .optional()
    .openapi({
      type: 'string',
      example: 'id,content,author,parent_id,timestamp',
      description:
        'Comma-separated message fields to answer (`id` always comes); absent, every field. Asking for none ' +
        `of recipients, attachments, reply_order, default_outgoing, reply_ids, stitch_parent_ids, ` +
        `stitch_child_ids, channel_ids, is_saved and reactions makes the answer cheaper to build. Known: ${names}.`,
    });
}

/** Whether a selection can be answered without the message's links. */
export function needsLinks(fields: FieldSelection): boolean {
  return fields === null || [...fields].some((name) => LINK_FIELDS.has(name));
}

/** The message with only the selected keys (all of them without a selection). */
export function selectFields<T extends object>(message: T, fields: FieldSelection): Partial<T> {
  if (fields === null) return message;
  const picked: Partial<T> = {};
  for (const key of Object.keys(message) as (keyof T)[])
    if (fields.has(key as string)) picked[key] = message[key];
  return picked;
}
