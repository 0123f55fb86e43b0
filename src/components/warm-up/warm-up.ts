// The warm-up: before the service listens (service.ts), it rehearses its hot paths (posting a root,
// a reply and a channel post; reading a message, the inbox, the timeline, a thread and a context;
// building the events' payloads) through its own use cases, on a world of two users and a channel
// made for each round inside a transaction that is rolled back (Database.rehearse): nothing lands,
// no event is numbered or sent, no cache is told. A fresh Neo4j plans each statement on its first
// run and runs its paths several times slower until its JIT has compiled them; without this, the
// first post after a start took 8-10 s at load 5 and posts stayed 3-5 times slower for the first
// few hundred (docs/decisions/035-warm-start.md).
import { SCOPES } from '../../platform/auth/scopes.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { newShortId } from '../../platform/auth/secrets.js';
import { addMember, createChannel } from '../channels/channels-repository.js';
import { readMessageContext } from '../context/read-context.js';
import { ContextQuery } from '../context/context.schemas.js';
import { buildChannelView, buildPayloads } from '../events/events-repository.js';
import { rehearsePost } from '../messages/post-messages.js';
import { readMessage } from '../messages/read-message.js';
import { listInbox } from '../threads/list-inbox.js';
import { listThreadMessages } from '../threads/list-thread-messages.js';
import { listTimeline } from '../threads/list-timeline.js';
import { InboxQuery, ThreadMessagesQuery, TimelineQuery } from '../threads/threads.schemas.js';
import { createUser } from '../users/users-repository.js';
import { sampleMessage, type WarmUpSample } from './warm-up-repository.js';
import { AppError } from '../../platform/errors.js';
import { createSession, findSessions } from '../identity/identity-repository.js';
import { PLAN_BATCH } from '../webhooks/webhook-dispatcher.js';
import { findDispatcherWork, planDeliveries } from '../webhooks/webhooks-repository.js';

export interface WarmUpReport {
  rounds: number;
  ms: number;
  /** The first failure, which ended the warm-up early (the service starts anyway). */
  error: string | null;
}

/** Rounds the warm-up runs at most; it also ends when its time is up. */
export const WARM_UP_MAX_ROUNDS = 150;

/**
 * Rehearses one round, then more until `seconds` have passed since it began or WARM_UP_MAX_ROUNDS
 * ran; 0 seconds runs none. The first round plans every statement and takes most of the time (6-15 s
 * on 2 cores, by load); the later ones run the compiled paths again for the JIT.
 */
export async function warmUp(ctx: AppContext, seconds: number): Promise<WarmUpReport> {
  const began = performance.now();
  const deadline = began + seconds * 1000;
  let rounds = 0;
  try {
    if (seconds <= 0) return { rounds, ms: 0, error: null };
    const sample = await sampleMessage(ctx.db);
    while (rounds === 0 || (rounds < WARM_UP_MAX_ROUNDS && performance.now() < deadline)) {
      await rehearseRound(ctx, sample, rounds);
      rounds++;
    }
  } catch (error) {
    return { rounds, ms: performance.now() - began, error: String(error) };
  }
  return { rounds, ms: performance.now() - began, error: null };
}

/** One round: the writes, then the reads; `sample` null as on an empty store. */
export async function rehearseRound(
  ctx: AppContext,
  sample: WarmUpSample | null,
  round: number,
): Promise<void> {
  if (sample?.other_uid) await rehearseWrites(ctx, sample, sample.other_uid, round);
  else await ctx.db.rehearse((db) => rehearseInWorld({ ...ctx, db }, round));
  await ctx.db.rehearse((db) => rehearseReads({ ...ctx, db }, sample));
}

/**
 * A conversation, a reply and a channel post as the sample's author writes them, and a sign-in: each
 * in a transaction of its own that writes nothing before it, as a request's. A statement planned in a
 * transaction that had written before it was planned again on its first run in one that had not
 * (write-post: 1.0 s of 2.8, hydrate 1.1 of 2.7; 2026-12-02).
 */
async function rehearseWrites(ctx: AppContext, sample: WarmUpSample, otherUid: string, round: number) {
  const author = callerOf(sample.uid, sample.user_tag);
  const text = `warm-up round ${round}: a few words, as a message has them`;
  const rehearse = (work: (rctx: AppContext) => Promise<unknown>) =>
    ctx.db.rehearse((db) => work({ ...ctx, db }));
  // As the only post writing here, it numbers its own events, as a post on a quiet service does.
  await rehearse((rctx) =>
    rctx.events.sequencer.writing(() =>
      rehearsePost(rctx, author, [{ content: text, recipients: [`uid:${otherUid}`] }]),
    ),
  );
  await rehearse((rctx) =>
    rehearsePost(rctx, author, [{ content: text, parent_id: sample.message_id, audience: 'parent' }]),
  );
  const channelId = sample.channel_id;
  if (channelId)
    await rehearse((rctx) => rehearsePost(rctx, author, [{ content: text, channel_ids: [channelId] }]));
  await rehearse((rctx) => rehearseSession(rctx, author));
  await rehearse((rctx) => planDeliveries(rctx.db, PLAN_BATCH));
}

/**
 * On an empty store: the same writes in one transaction, in a world of two users and a channel made
 * in it (planned again at their first requests, as said above, but the JVM has run their paths).
 */
async function rehearseInWorld(ctx: AppContext, round: number): Promise<void> {
  const a = await rehearsalUser(ctx);
  const b = await rehearsalUser(ctx);
  const channel = await createChannel(
    ctx.db,
    a.uid,
    { display_name: 'warm-up', description: null },
    async (tx, created) => {
      await addMember(tx, a.uid, created.id, b.uid, null);
    },
  );
  if (!channel) throw new Error('the warm-up could not make its channel');
  await rehearseSession(ctx, b);
  const text = `warm-up round ${round}: a few words, as a message has them`;
  const [root] = await ctx.events.sequencer.writing(() =>
    rehearsePost(ctx, a, [{ content: text, recipients: [`uid:${b.uid}`] }]),
  );
  if (!root?.ok) throw new Error(`the warm-up's post failed: ${JSON.stringify(root)}`);
  await rehearsePost(ctx, b, [
    { content: `@${a.userTag} ${text}`, parent_id: root.message.id, audience: 'parent' },
  ]);
  await rehearsePost(ctx, a, [{ content: text, channel_ids: [channel.id] }]);
  await planDeliveries(ctx.db, PLAN_BATCH);
}

/**
 * What readers ask: a message, the inbox, the timeline, a thread, a context, the events' payloads,
 * a session, the webhook dispatcher's look for work; as the sample's author reads it (ids of nothing
 * on an empty store: the statements are planned all the same). Nothing is written before them.
 */
async function rehearseReads(ctx: AppContext, sample: WarmUpSample | null): Promise<void> {
  const reader = callerOf(sample?.uid ?? 'warm-up-none', sample?.user_tag ?? '');
  const id = sample?.message_id ?? 'warm-up-none';
  await findSessions(ctx.db, ['warm-up-none']);
  await readMessage(ctx, reader, id).catch(ignoreNotFound);
  await listInbox(ctx, reader, InboxQuery.parse({}));
  await listTimeline(ctx, reader, TimelineQuery.parse({}));
  await listThreadMessages(ctx, reader, id, ThreadMessagesQuery.parse({})).catch(ignoreNotFound);
  await readMessageContext(ctx, reader, id, ContextQuery.parse({})).catch(ignoreNotFound);
  await buildPayloads(ctx.db, [
    { key: 0, uid: reader.uid, message_ids: [id], include_own: false, with_context: false },
    { key: 1, uid: reader.uid, message_ids: [id], include_own: true, with_context: true },
  ]);
  await buildChannelView(ctx.db, sample?.channel_id ?? 'warm-up-none', [id], [reader.uid]);
  await findDispatcherWork(ctx.db, PLAN_BATCH);
}

/** The 404 of a message the sample's author may no longer see (deleted since) is an answer too. */
function ignoreNotFound(error: unknown): void {
  if (!(error instanceof AppError && error.code === 'message_not_found')) throw error;
}

/** A sign-in's session, and the read every request's credential takes when the session cache misses. */
async function rehearseSession(ctx: AppContext, caller: Caller): Promise<void> {
  const sessionId = newShortId();
  await createSession(ctx.db, {
    session_id: sessionId,
    secret_hash: 'warm-up',
    uid: caller.uid,
    permissions: caller.permissions,
    requested: null,
    expires_at: new Date(Date.now() + 60_000).toISOString(),
    device_id: null,
    key_id: null,
    acting_manager_uid: null,
    method: 'password',
    parent_session_id: null,
    parent_key_id: null,
  });
  await findSessions(ctx.db, [sessionId]);
}

/** A user that exists only inside the round's transaction, with every scope. */
async function rehearsalUser(ctx: AppContext): Promise<Caller> {
  const user = await createUser(ctx.db, {
    user_tag: `warm-up-${newShortId()}`,
    display_name: null,
    is_managed: false,
    is_bot: false,
    has_api_access: false,
    scopes: [...SCOPES],
    password_hash: null,
    email: null,
    manager_uid: null,
    bot: null,
  });
  return callerOf(user.uid, user.user_tag);
}

/** A caller with every scope, as a session of that user would be. */
function callerOf(uid: string, userTag: string): Caller {
  return {
    uid,
    userTag,
    isManaged: false,
    permissions: [...SCOPES],
    ceiling: null,
    via: 'session',
    sessionId: null,
    sessionToken: null,
    keyId: null,
    actingManagerUid: null,
  };
}
