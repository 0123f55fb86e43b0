// The public page's use case: a message as the anonymous reader sees it, with the public part of its
// thread above it. Anonymous means viewer_uid null in the one visibility rule, so "public" is decided
// by cypher/fragments/can-see.cypher like everywhere else; no scope applies to a reader without
// credentials, and any credentials the browser sends are ignored (the page is the same for everyone).
import type { AppContext } from '../../platform/context.js';
import { hydrateMessages } from '../messages/messages-repository.js';
import { MessageId, type MessageOutput } from '../messages/messages.schemas.js';
import { viewerOf } from '../messages/visibility-policy.js';
import { findThreadContext } from './public-page-repository.js';

export interface PublicMessageView {
  message: MessageOutput;
  /** Public ancestors, the thread's root-most shown message first; empty for a root or a cut chain. */
  ancestors: MessageOutput[];
  displayNames: Map<string, string | null>;
}

/** The page's content, or null for a malformed id, a missing message or one that is not public. */
export async function showPublicMessage(
  ctx: AppContext,
  messageId: string,
): Promise<PublicMessageView | null> {
  if (!MessageId.safeParse(messageId).success) return null;
  const viewer = viewerOf(null);
  const context = await findThreadContext(ctx.db, viewer, messageId);
  if (!context) return null;
  const shown = await hydrateMessages(ctx.db, viewer, context.ids, ctx.config.publicUrl);
  const message = shown.at(-1);
  // Made private between the two reads: the message drops out of the hydration, so it is a 404 too.
  if (message?.id !== messageId) return null;
  // An ancestor made private in between also drops out; keep only the unbroken chain just above it.
  const ancestors: MessageOutput[] = [];
  for (let i = shown.length - 2; i >= 0; i--) {
    const above = shown[i]!;
    const below = ancestors[0] ?? message;
    if (below.parent_id !== above.id) break;
    ancestors.unshift(above);
  }
  return { message, ancestors, displayNames: context.displayNames };
}
