// The only code that runs the stitches' Cypher. Takes and returns plain objects.
import neo4j from 'neo4j-driver';
import type { Database, Tx } from '../../platform/neo4j/database.js';

export interface Stitch {
  stitched_by: string;
  created_at: string;
}

export interface StitchEnds {
  author_uid: string;
  manager_uids: string[];
}

/** Draws (or finds) the viewer's stitch; null when either end is missing or invisible to the viewer. */
export async function createStitch(
  db: Database,
  viewerUid: string,
  fromId: string,
  toId: string,
): Promise<Stitch | null> {
  const [row] = await db.write('links/create-stitch', {
    viewer_uid: viewerUid,
    from_id: fromId,
    to_id: toId,
    now: new Date().toISOString(),
  });
  return row ? (row as unknown as Stitch) : null;
}

/** The FROM message's authorship when both ends are visible to the viewer, else null. */
export async function findStitchEnds(
  tx: Tx,
  viewerUid: string,
  fromId: string,
  toId: string,
): Promise<StitchEnds | null> {
  const [row] = await tx.run('links/find-stitch-ends', {
    viewer_uid: viewerUid,
    from_id: fromId,
    to_id: toId,
  });
  return row ? (row as unknown as StitchEnds) : null;
}

/** Removes the viewer's stitch, or every stitch between them with anyStitcher; answers the removed ones. */
export async function deleteStitches(
  tx: Tx,
  viewerUid: string,
  fromId: string,
  toId: string,
  anyStitcher: boolean,
): Promise<Stitch[]> {
  const [row] = await tx.run('links/delete-stitches', {
    viewer_uid: viewerUid,
    from_id: fromId,
    to_id: toId,
    any_stitcher: anyStitcher,
  });
  return (row?.removed as Stitch[] | undefined) ?? [];
}

export type LinkDirection = 'incoming' | 'outgoing';

/**
 * Ids of one page of visible linked messages, fetching one more than `limit` so the caller can tell
 * has_more; null when the message itself is missing or invisible.
 */
export async function listLinkedIds(
  db: Database,
  viewerUid: string,
  messageId: string,
  direction: LinkDirection,
  page: { skip: number; limit: number; showAll: boolean },
): Promise<string[] | null> {
  const [row] = await db.read(`links/list-${direction}`, {
    viewer_uid: viewerUid,
    message_id: messageId,
    show_all: page.showAll,
    // SKIP and LIMIT take integers; plain JS numbers would reach Neo4j as floats.
    skip: neo4j.int(page.skip),
    limit: neo4j.int(page.limit + 1),
  });
  return row ? (row.ids as string[]) : null;
}
