// The only code that runs the conversation context's Cypher (cypher/context/). Takes and returns
// plain objects: the entries as the viewer may see them, in answer order, with their times as
// epoch milliseconds (read-context.ts turns them into the API's shape).
import neo4j from 'neo4j-driver';
import type { Database } from '../../platform/neo4j/database.js';
import type { ContextEntry } from './context.schemas.js';

export interface ContextAuthorRow {
  uid: string;
  user_tag: string;
  is_bot: boolean;
}

export interface ContextRow {
  id: string;
  part: ContextEntry['part'];
  content: string;
  created_ms: number;
  author: ContextAuthorRow;
  /** In the order the message attaches them. */
  attachments: {
    file_id: string;
    filename: string;
    content_type: string;
    size: number;
    sha256: string;
  }[];
}

export interface ReadContext {
  entries: ContextRow[];
  truncated: boolean;
}

interface EntryRow extends Omit<ContextRow, 'author' | 'attachments'> {
  author_uid: string;
  attachments: (ContextRow['attachments'][number] & { position: number })[];
}

/**
 * The context of `messageId` as `viewerUid` may see it (cypher/context/read-context.cypher), in
 * one statement; null when the message is missing or invisible to the viewer.
 */
export async function readContext(
  db: Database,
  viewerUid: string,
  messageId: string,
  bounds: { limit: number; maxChars: number },
): Promise<ReadContext | null> {
  const [row] = await db.read('context/read-context', {
    viewer_uid: viewerUid,
    message_id: messageId,
    limit: neo4j.int(bounds.limit),
    max_chars: neo4j.int(bounds.maxChars),
  });
  if (!row) return null;
  const authors = new Map((row.authors as ContextAuthorRow[]).map((author) => [author.uid, author]));
  return {
    truncated: row.truncated as boolean,
    entries: (row.entries as EntryRow[]).map(({ author_uid, attachments, ...entry }) => ({
      ...entry,
      // A message's author is never deleted (a deleted managed user stays as a tombstone).
      author: authors.get(author_uid) ?? { uid: author_uid, user_tag: '', is_bot: false },
      attachments: attachments
        .sort((a, b) => a.position - b.position)
        .map(({ position: _position, ...file }) => file),
    })),
  };
}
