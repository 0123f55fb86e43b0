// The only code that runs the public page's Cypher. Takes and returns plain objects.
import type { Database } from '../../platform/neo4j/database.js';
import type { Viewer } from '../messages/messages-repository.js';

export interface ThreadContext {
  /** The visible ancestors, root-most first, then the message itself (last). */
  ids: string[];
  /** Display names of the authors of those messages, by uid (null when unset). */
  displayNames: Map<string, string | null>;
}

/** The message's visible ancestor chain for `viewer`, or null when the message is missing or invisible. */
export async function findThreadContext(
  db: Database,
  viewer: Viewer,
  messageId: string,
): Promise<ThreadContext | null> {
  const [row] = await db.read('public-page/thread-context', { viewer_uid: viewer.uid, id: messageId });
  if (!row) return null;
  const authors = row.authors as { uid: string; display_name: string | null }[];
  return {
    ids: row.ids as string[],
    displayNames: new Map(authors.map((author) => [author.uid, author.display_name ?? null])),
  };
}
