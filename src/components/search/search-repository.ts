// The only code that runs the search Cypher (cypher/search/). Searches answer one page of message
// ids (one more than asked, so the caller can tell has_more); MessageOutputs come from
// hydrateMessages.
import neo4j from 'neo4j-driver';
import type { Database } from '../../platform/neo4j/database.js';
import { windowParams as pageParams, type PageWindow } from '../threads/threads-repository.js';

export interface ContentSearch {
  /** Lucene query on message_content, built by lucene-query.ts. */
  lucene: string;
  /** Distinct lower-case words of the query; their occurrences in a hit rank it. */
  words: string[];
  /** Lower-case tags the messages must also carry (none: no tag filter). */
  tags: string[];
  match: 'any' | 'all';
}

export async function contentSearchIds(
  db: Database,
  viewerUid: string | null,
  search: ContentSearch,
  window: PageWindow,
): Promise<string[]> {
  const rows = await db.read('search/search-content', {
    viewer_uid: viewerUid,
    ...search,
    ...pageParams(window),
  });
  return rows.map((row) => row.id as string);
}

export interface TagSearch {
  /** Lucene query on message_tags, built by lucene-query.ts. */
  lucene: string;
  tags: string[];
  match: 'any' | 'all';
}

export async function tagSearchIds(
  db: Database,
  viewerUid: string | null,
  search: TagSearch,
  window: PageWindow,
): Promise<string[]> {
  const rows = await db.read('search/search-tags', {
    viewer_uid: viewerUid,
    ...search,
    ...pageParams(window),
  });
  return rows.map((row) => row.id as string);
}

export interface Candidate {
  id: string;
  content: string;
  created_at: string;
}

/**
 * Visible messages other than the source sharing a token with it, best full-text matches first, each
 * with only the first `contentChars` characters of its content.
 */
export async function similarCandidates(
  db: Database,
  viewerUid: string | null,
  query: { sourceId: string; lucene: string; hits: number; cap: number; contentChars: number },
): Promise<Candidate[]> {
  const rows = await db.read('search/similar-candidates', {
    viewer_uid: viewerUid,
    source_id: query.sourceId,
    lucene: query.lucene,
    hits: neo4j.int(query.hits),
    cap: neo4j.int(query.cap),
    content_chars: neo4j.int(query.contentChars),
  });
  return rows.map((row) => ({
    id: row.id as string,
    content: (row.content as string | null) ?? '',
    created_at: (row.created_at as string | null) ?? '',
  }));
}
