// The only code that runs the message edits' Cypher (cypher/message-edits/). Takes and returns
// plain objects; every query applies the visibility rule for the viewer it is given.
import type { Database, Tx } from '../../platform/neo4j/database.js';

/** Who wrote a message and who manages that author: what "author or manager" is decided on. */
export interface Authorship {
  id: string;
  author_uid: string;
  manager_uids: string[];
}

export interface EditTarget extends Authorship {
  subject: string | null;
}

export interface DeletionTarget extends Authorship {
  /** The whole reply subtree below it (empty unless descendants were asked for). */
  descendants: (Authorship & { visible: boolean })[];
}

/** The messages of `ids` the viewer may see, by id; the others are missing or invisible. */
export async function findEditTargets(
  tx: Tx,
  viewerUid: string,
  ids: string[],
): Promise<Map<string, EditTarget>> {
  const rows = await tx.run('message-edits/find-targets', { viewer_uid: viewerUid, ids });
  return new Map(rows.map((row) => [row.id as string, row as unknown as EditTarget]));
}

/**
 * Locks the whole reply subtrees of `ids` (repeating until no reply joined meanwhile), so that the
 * deletion's checks and its re-rooting see every reply there will be.
 */
export async function lockSubtrees(tx: Tx, ids: string[]): Promise<void> {
  let locked = -1;
  for (;;) {
    const rows = await tx.run('message-edits/lock-subtrees', { ids });
    if (rows.length === locked) return;
    locked = rows.length;
  }
}

export async function findDeletionTargets(
  tx: Tx,
  viewerUid: string,
  ids: string[],
  withDescendants: boolean,
): Promise<Map<string, DeletionTarget>> {
  const rows = await tx.run('message-edits/find-deletion-targets', {
    viewer_uid: viewerUid,
    ids,
    with_descendants: withDescendants,
  });
  return new Map(rows.map((row) => [row.id as string, row as unknown as DeletionTarget]));
}

/** Deletes the (authorized) messages and re-roots the reply children that survive. */
export async function deleteMessages(tx: Tx, viewerUid: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await tx.run('message-edits/delete-messages', { viewer_uid: viewerUid, ids });
  return (row?.deleted as number | undefined) ?? 0;
}

async function idsOf(rows: Promise<Record<string, unknown>[]>): Promise<string[]> {
  return (await rows).map((row) => row.id as string);
}

export function setPublic(tx: Tx, viewerUid: string, ids: string[], isPublic: boolean): Promise<string[]> {
  return idsOf(tx.run('message-edits/set-public', { viewer_uid: viewerUid, ids, public: isPublic }));
}

/** True when the subject was added; false when the message has one already (or is gone). */
export async function setSubject(tx: Tx, viewerUid: string, id: string, subject: string): Promise<boolean> {
  const ids = await idsOf(tx.run('message-edits/set-subject', { viewer_uid: viewerUid, id, subject }));
  return ids.length > 0;
}

/** Locks a message the viewer can see before its content changes; false when missing or invisible. */
export async function lockContent(tx: Tx, viewerUid: string, id: string): Promise<boolean> {
  const rows = await tx.run('message-edits/lock-content', {
    viewer_uid: viewerUid,
    id,
    now: new Date().toISOString(),
  });
  return rows.length > 0;
}

/**
 * Replaces the content of a locked, authorized message, keeping the replaced one as a version (at
 * most `keep` of them). False when the content was already this (nothing is written).
 */
export async function setContent(
  tx: Tx,
  editorUid: string,
  id: string,
  content: string,
  keep: number,
): Promise<boolean> {
  const [row] = await tx.run('message-edits/set-content', {
    id,
    content,
    editor_uid: editorUid,
    keep,
    now: new Date().toISOString(),
  });
  return row?.changed === true;
}

export interface PreviousVersion {
  content: string;
  edited_at: string;
  edited_by: { uid: string; user_tag: string | null };
}

/** A visible message's previous versions, oldest first; null when it is missing or invisible. */
export async function listVersions(
  db: Database,
  viewerUid: string | null,
  id: string,
): Promise<PreviousVersion[] | null> {
  const [row] = await db.read('message-edits/list-edits', { viewer_uid: viewerUid, id });
  if (!row) return null;
  const versions = row.versions as {
    content: string;
    position: number;
    edited_ms: number;
    editor_uid: string;
    editor_tag: string | null;
  }[];
  return [...versions]
    .sort((a, b) => a.position - b.position)
    .map((v) => ({
      content: v.content,
      edited_at: new Date(v.edited_ms).toISOString(),
      edited_by: { uid: v.editor_uid, user_tag: v.editor_tag ?? null },
    }));
}

/** Replaces the tags of the visible messages among `ids`; answers the ids changed. */
export function setTags(tx: Tx, viewerUid: string, ids: string[], tags: string[]): Promise<string[]> {
  return idsOf(tx.run('message-edits/set-tags', { viewer_uid: viewerUid, ids, tags }));
}

export async function setReplyOrder(
  tx: Tx,
  viewerUid: string,
  id: string,
  replyOrder: string[] | null,
): Promise<void> {
  await tx.run('message-edits/set-reply-order', { viewer_uid: viewerUid, id, reply_order: replyOrder });
}

export async function setDefaultOutgoing(
  tx: Tx,
  viewerUid: string,
  id: string,
  defaultOutgoing: string | null,
): Promise<void> {
  await tx.run('message-edits/set-default-outgoing', {
    viewer_uid: viewerUid,
    id,
    default_outgoing: defaultOutgoing,
  });
}

export async function listTags(db: Database, viewerUid: string): Promise<string[]> {
  const rows = await db.read('message-edits/list-tags', { viewer_uid: viewerUid });
  return rows.map((row) => row.tag as string);
}

/** null when the message is missing or invisible. */
export async function setReadState(
  db: Database,
  viewerUid: string,
  id: string,
  read: boolean,
): Promise<{ has_edge: boolean; read_at: string | null } | null> {
  const [row] = await db.write('message-edits/set-read-state', {
    viewer_uid: viewerUid,
    id,
    read,
    now: new Date().toISOString(),
  });
  if (!row) return null;
  return { has_edge: row.has_edge === true, read_at: (row.read_at as string | null) ?? null };
}

/** The bookmark's saved_at, or null when the message is missing or invisible. */
export async function addBookmark(db: Database, viewerUid: string, id: string): Promise<string | null> {
  const [row] = await db.write('message-edits/bookmark', {
    viewer_uid: viewerUid,
    id,
    now: new Date().toISOString(),
  });
  return row ? (row.saved_at as string) : null;
}

/** False when the message is missing or invisible. */
export async function removeBookmark(db: Database, viewerUid: string, id: string): Promise<boolean> {
  const rows = await db.write('message-edits/unbookmark', { viewer_uid: viewerUid, id });
  return rows.length > 0;
}

/** One page of bookmarked, visible message ids (newest bookmark first) and whether more follow. */
export async function listBookmarkIds(
  db: Database,
  viewerUid: string,
  page: { skip: number; limit: number },
): Promise<{ ids: string[]; has_more: boolean }> {
  const rows = await db.read('message-edits/list-bookmarks', { viewer_uid: viewerUid, ...page });
  const ids = rows.map((row) => row.id as string);
  return { ids: ids.slice(0, page.limit), has_more: ids.length > page.limit };
}
