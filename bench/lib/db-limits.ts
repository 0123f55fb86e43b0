// The database limit of each workload: the Cypher statements the service runs for one request,
// sent straight through neo4j-driver (the Database wrapper of src/platform/neo4j, which loads the
// same cypher/ files with cypher(name)) with the repositories' parameter shapes, and nothing else:
// no HTTP, no Express, no validation, no JSON output. Every operation starts with the session
// lookup (identity/find-sessions) that authenticates each request, since the service cannot skip it.
//
// Posting goes through the repository functions the use case calls (resolvePostRefs, then one write
// transaction: writePost (messages, edges and events, and the answer's read, in one statement); then
// the sequencer's numbering round), so that the event log's statements are the ones the service
// runs even when they change.
import neo4j from 'neo4j-driver';
import { numberPendingEvents } from '../../src/components/event-log/event-log-repository.js';
import { changeEvents, channelEvents, userEvents } from '../../src/components/event-log/record-events.js';
import {
  hydrateMessages,
  POST_CHANNEL_MEMBERS_READ,
  resolvePostRefs,
  writePost,
  type NewMessage,
  type NewMessageEdges,
} from '../../src/components/messages/messages-repository.js';
import {
  SIMILAR_CANDIDATE_CHARS,
  SIMILAR_CANDIDATE_TOKENS,
  SIMILAR_CANDIDATES,
  SIMILAR_HITS,
  SIMILAR_QUERY_TOKENS,
  SIMILAR_SOURCE_TOKENS,
} from '../../src/components/search/find-similar-messages.js';
import { allTerms, anyTerms, chunksOf } from '../../src/components/search/lucene-query.js';
import { contentSearchIds, similarCandidates } from '../../src/components/search/search-repository.js';
import { ngramProfile, similarityScore, tokenize } from '../../src/components/search/similarity.js';
import {
  conversationPage,
  historyPage,
  inboxPage,
  timelinePage,
  unreadCounts,
  threadPageIds,
  walkFrom,
  walkQuery,
  type ViewQuery,
} from '../../src/components/threads/threads-repository.js';
import { findUsersByUid } from '../../src/components/users/users-repository.js';
import { readContext } from '../../src/components/context/context-repository.js';
import type { HydratedRow } from '../../src/components/messages/message-output.js';
import {
  MAX_TRAVERSAL_CONTENT_CHARS,
  MAX_TRAVERSAL_NODES,
} from '../../src/components/threads/threads.schemas.js';
import { newShortId } from '../../src/platform/auth/secrets.js';
import type { Database } from '../../src/platform/neo4j/database.js';
import { constraintClash } from '../../src/platform/neo4j/unique-ids.js';

export interface Actor {
  uid: string;
  sessionId: string;
}

export interface PlannedPost {
  author: Actor;
  contents: string[];
  recipientUids: string[];
  channelIds: string[];
}

/** One operation of a limit: answers the units it did (messages written, 1 for a read). */
export type Operation = (worker: number, iteration: number) => Promise<number>;

export class DbLimits {
  constructor(
    private readonly db: Database,
    private readonly publicUrl: string,
  ) {}

  private async authenticate(actor: Actor): Promise<void> {
    const rows = await this.db.read('identity/find-sessions', { session_ids: [actor.sessionId] });
    if (rows.length === 0) throw new Error('session not found');
  }

  /** As the service hydrates: without links (hydrate-core) when the fields asked for need none. */
  private async hydrate(viewerUid: string, ids: string[], links = true): Promise<number> {
    if (ids.length === 0) return 0;
    const query = links ? 'messages/hydrate' : 'messages/hydrate-core';
    const [answer] = await this.db.read(query, { viewer_uid: viewerUid, ids });
    return ((answer?.rows as unknown[] | undefined) ?? []).length;
  }

  /** GET /v1/messages/{id}: session, hydrate. */
  readById(viewer: Actor, ids: string[]): Operation {
    return async (_worker, i) => {
      await this.authenticate(viewer);
      if ((await this.hydrate(viewer.uid, [ids[i % ids.length]!])) !== 1) throw new Error('not visible');
      return 1;
    };
  }

  /** A paginated view (timeline, inbox, history): session, the view's query and its hydration. */
  view(viewer: Actor, name: 'timeline' | 'inbox' | 'history', limit: number): Operation {
    // Through the service's own repository functions, so the limit runs each query as the service does.
    const window = { skip: 0, limit };
    const page = {
      timeline: () => timelinePage(viewer.uid, null, window),
      inbox: () => inboxPage(viewer.uid, { channelId: null, unreadOnly: false }, window),
      history: () => historyPage(viewer.uid, null, window),
    }[name]();
    return async () => {
      await this.authenticate(viewer);
      await this.hydratedPage(page, limit);
      return 1;
    };
  }

  /** A page query and its hydration in one statement, as the service's viewPage runs them. */
  private async hydratedPage(page: ViewQuery, limit: number): Promise<void> {
    const params = { ...page.params, hydrate_limit: neo4j.int(limit) };
    await this.db.read(`messages/hydrate-page(${page.name})`, params);
  }

  /**
   * GET /v1/messages/{id}/thread: session, the page of the thread, hydrate it. Without links, the
   * GraphQL read that selects no link field, which also loads the authors.
   */
  threadPage(viewer: Actor, originId: string, limit: number, links: boolean): Operation {
    return async () => {
      await this.authenticate(viewer);
      const ids = await threadPageIds(this.db, viewer.uid, originId, { skip: 0, limit });
      if (ids === null) throw new Error('thread origin not visible');
      const page = ids.slice(0, limit);
      if (links) {
        await this.hydrate(viewer.uid, page);
        return 1;
      }
      const [answer] = await this.db.read('messages/hydrate-core', { viewer_uid: viewer.uid, ids: page });
      const authors = ((answer?.rows as HydratedRow[] | undefined) ?? []).map((row) => row[1][0]);
      await findUsersByUid(this.db, [...new Set(authors)]);
      return 1;
    };
  }

  /** GET /v1/messages/conversation/{uid}: session, the other user, the page, hydrate it. */
  conversation(viewer: Actor, otherUid: string, limit: number): Operation {
    return async () => {
      await this.authenticate(viewer);
      await Promise.all([
        findUsersByUid(this.db, [otherUid]),
        this.hydratedPage(conversationPage(viewer.uid, otherUid, { skip: 0, limit }), limit),
      ]);
      return 1;
    };
  }

  /** GET /v1/messages/unread: session and the counts (nothing to hydrate). */
  unread(viewer: Actor, limit: number): Operation {
    return async () => {
      await this.authenticate(viewer);
      await unreadCounts(this.db, viewer.uid, { skip: 0, limit });
      return 1;
    };
  }

  /**
   * GET /v1/messages/traverse-from/{id}: session, the walk and what it reached hydrated in one
   * statement; without links, the walk then the lighter hydration.
   */
  traverse(viewer: Actor, originId: string, up: number, down: number, links = true): Operation {
    // Through the service's own repository function, so the limit runs the query as the service does.
    const options = {
      upDepth: up,
      downDepth: down,
      edge: 'reply' as const,
      getChildren: false,
      defaultPathOnly: false,
      maxNodes: MAX_TRAVERSAL_NODES,
      maxChars: MAX_TRAVERSAL_CONTENT_CHARS,
    };
    return async () => {
      await this.authenticate(viewer);
      const walk = walkQuery(viewer.uid, originId, options);
      if (links) {
        await this.db.read(`messages/hydrate-walk(${walk.name})`, walk.params);
        return 1;
      }
      const walked = await walkFrom(this.db, walk);
      await this.hydrate(
        viewer.uid,
        (walked?.nodes ?? []).map((node) => node.id),
        false,
      );
      return 1;
    };
  }

  /** GET /v1/messages/{id}/context: session, the one context statement. */
  context(viewer: Actor, messageId: string, limit: number, maxChars: number): Operation {
    return async () => {
      await this.authenticate(viewer);
      if (!(await readContext(this.db, viewer.uid, messageId, { limit, maxChars })))
        throw new Error('context message not visible');
      return 1;
    };
  }

  /** GET /v1/messages/{id}/tree-ids: session, tree-ids. */
  treeIds(viewer: Actor, messageId: string): Operation {
    return async () => {
      await this.authenticate(viewer);
      await this.db.read('threads/tree-ids', { viewer_uid: viewer.uid, ids: [messageId] });
      return 1;
    };
  }

  /** GET /v1/messages/search?q=: session, search-content, hydrate the page. */
  search(viewer: Actor, queries: string[], limit: number): Operation {
    return async (_worker, i) => {
      await this.authenticate(viewer);
      const text = queries[i % queries.length]!;
      const lucene = allTerms(chunksOf(text));
      if (lucene === null) throw new Error(`the query ${JSON.stringify(text)} has no word`);
      const ids = await contentSearchIds(
        this.db,
        viewer.uid,
        { lucene, words: [...new Set(tokenize(text))], tags: [], match: 'any' },
        { skip: 0, limit },
      );
      await this.hydrate(viewer.uid, ids.slice(0, limit));
      return 1;
    };
  }

  /**
   * GET /v1/messages/similar/{id}: session, hydrate the source, the candidates query, the n-gram
   * score (in TypeScript, as the service does), hydrate the best `limit`.
   */
  similar(viewer: Actor, sourceIds: string[], limit: number, maxN: number): Operation {
    return async (_worker, i) => {
      await this.authenticate(viewer);
      const [source] = await hydrateMessages(
        this.db,
        { uid: viewer.uid },
        [sourceIds[i % sourceIds.length]!],
        this.publicUrl,
      );
      if (!source) throw new Error('source not visible');
      const tokens = tokenize(source.content);
      const lucene = anyTerms([
        ...[...new Set(tokens)].slice(0, SIMILAR_QUERY_TOKENS),
        ...chunksOf(source.content).slice(0, SIMILAR_QUERY_TOKENS),
      ]);
      if (lucene === null) return 1;
      const candidates = await similarCandidates(this.db, viewer.uid, {
        sourceId: source.id,
        lucene,
        hits: SIMILAR_HITS,
        cap: SIMILAR_CANDIDATES,
        contentChars: SIMILAR_CANDIDATE_CHARS,
      });
      const profile = ngramProfile(tokens.slice(0, SIMILAR_SOURCE_TOKENS), maxN);
      const best = candidates
        .map((c) => ({
          id: c.id,
          score: similarityScore(profile, tokenize(c.content).slice(0, SIMILAR_CANDIDATE_TOKENS)),
        }))
        .filter((c) => c.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
      await this.hydrate(
        viewer.uid,
        best.map((c) => c.id),
      );
      return 1;
    };
  }

  /**
   * POST /v1/messages: session, then one write transaction that resolves the references and writes the messages,
   * their edges, the hydrated answer and the notifications (with their webhook deliveries).
   * `plan(worker, iteration)` gives the post: its author, contents (chained when several), the
   * recipients of each message and the channels each message is posted into.
   */
  post(plan: (worker: number, iteration: number) => PlannedPost): Operation {
    return async (worker, iteration) => {
      const { author, contents, recipientUids, channelIds } = plan(worker, iteration);
      await this.authenticate(author);
      // Ids are 8 random hex characters, unique by constraint: on a store of a million messages a
      // 100-message post collides now and then, and the service then retries with fresh ids.
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.writePost(author, contents, recipientUids, channelIds);
        } catch (error) {
          if (constraintClash(error) !== 'id' || attempt >= 3) throw error;
        }
      }
    };
  }

  /** The post's write transaction, with fresh message ids. */
  private async writePost(
    author: Actor,
    contents: string[],
    recipientUids: string[],
    channelIds: string[],
  ): Promise<number> {
    // As the service does: the references are resolved in the write transaction.
    return this.db
      .inWrite(async (tx) => {
        const refs = await resolvePostRefs(tx, author.uid, {
          parent_ids: [],
          tags: [],
          uids: recipientUids,
          channel_ids: channelIds,
          file_ids: [],
        });
        const base = Date.now();
        const items: NewMessage[] = [];
        const edges: NewMessageEdges = { replies: [], receivers: [], inclusions: [], attachments: [] };
        const toNotify: { uid: string; message_id: string }[] = [];
        // Each message after the first replies to the one before it, in the first one's thread.
        let parentId: string | null = null;
        let rootId: string | null = null;
        for (const content of contents) {
          const id = newShortId();
          rootId ??= id;
          items.push({
            id,
            content,
            subject: null,
            public: false,
            created_at: new Date(base + items.length).toISOString(),
            parent_id: parentId,
            root_id: rootId,
            tags: [],
            import_info_json: null,
            stream_json: null,
          });
          if (parentId) edges.replies.push({ parent_id: parentId, child_id: id });
          for (const wanted of recipientUids) {
            const uid = refs.users.get(`uid:${wanted}`);
            if (!uid) throw new Error(`no user ${wanted}`);
            edges.receivers.push({ message_id: id, uid, public: true });
            toNotify.push({ uid, message_id: id });
          }
          for (const channelId of channelIds) {
            if (!refs.channels.get(channelId)?.member) throw new Error(`not a member of ${channelId}`);
            edges.inclusions.push({ message_id: id, channel_id: channelId });
          }
          parentId = id;
        }
        const events = changeEvents(author.uid, [
          ...userEvents('sent', toNotify, author.uid),
          ...channelEvents('channels', edges.inclusions, author.uid, edges.receivers),
        ]);
        // Not public: the members are read with the write, for the view cache, and the answer too.
        // Numbered by a round of their own, as concurrent posts are (a lone post numbers its own).
        await writePost(tx, items, edges, events, {
          channelMembersLimit: POST_CHANNEL_MEMBERS_READ,
          publicUrl: this.publicUrl,
          roundLimit: 0,
          viewChannelIds: [],
        });
        return items.length;
      })
      .then(async (count) => {
        await numberPendingEvents(this.db, 1000);
        return count;
      });
  }
}
