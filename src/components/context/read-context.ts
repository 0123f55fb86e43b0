// GET /v1/messages/{message_id}/context: the conversation a message belongs to, ready to become a
// chat-model prompt. For a message the caller may see (else the one 404 of a missing message): the
// caller's starting context when it is a bot with a context origin, then the reply ancestors from
// the thread root down, then the message; every entry one the caller may see, with its role
// relative to the caller. Bounded by `limit` entries and `max_chars` content characters, with
// `truncated` telling when something was cut. One statement reads it all
// (cypher/context/read-context.cypher); the rules are docs/decisions/026-conversation-context.md.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { messageNotFound } from '../../platform/errors.js';
import { readContext } from './context-repository.js';
import type { ContextQuery, MessageContext } from './context.schemas.js';

export async function readMessageContext(
  ctx: AppContext,
  caller: Caller,
  messageId: string,
  query: ContextQuery,
): Promise<MessageContext> {
  assertScope(caller, 'messages.read');
  const read = await readContext(ctx.db, caller.uid, messageId, {
    limit: query.limit,
    maxChars: query.max_chars,
  });
  if (!read) throw messageNotFound();
  const files = `${ctx.config.publicUrl}/v1/files/`;
  return {
    message_id: messageId,
    entries: read.entries.map((entry) => ({
      id: entry.id,
      part: entry.part,
      // The turns a chat model is given: what the caller said, and what everyone else said.
      role: entry.author.uid === caller.uid ? 'assistant' : 'user',
      author: entry.author,
      content: entry.content,
      timestamp: new Date(entry.created_ms).toISOString(),
      attachments: entry.attachments.map((file) => ({ ...file, url: `${files}${file.file_id}` })),
    })),
    truncated: read.truncated,
  };
}
