// Posts write a few at a time per lane (components/messages/post-lanes.ts): with
// SKEIN_POST_WRITERS=1, a direct post held inside Neo4j (by a lock this test takes)
// keeps the next direct post waiting outside Neo4j, while a channel post goes through its own lane;
// once the lock goes, the waiting post is written and answered. Asserted through the API and the
// store, and with the skein_posts_waiting gauge of GET /metrics (no timings).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const METRICS_TOKEN = 'post-lanes-metrics-token-0123456789';
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer({ SKEIN_POST_WRITERS: '1', SKEIN_METRICS_TOKEN: METRICS_TOKEN });
});

afterAll(async () => {
  await api.close();
});

type PostAnswer = { status: number; body: { ok: boolean; message?: { id: string } }[] };

function post(user: TestUser, item: Record<string, unknown>): Promise<PostAnswer> {
  return api.request('POST', '/v1/messages', { token: user.token, body: item });
}

/** Polls until `check` answers true (each try a real request or query), or fails naming `what`. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

/** The skein_posts_waiting gauge of one lane, from GET /metrics. */
async function waiting(lane: 'direct' | 'channel'): Promise<number> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('skein_posts_waiting{') && l.includes(`lane="${lane}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function messagesWithContent(content: string): Promise<number> {
  const { records } = await api.ctx.db.driver.executeQuery(
    'MATCH (m:Message {content: $content}) RETURN count(m) AS n',
    { content },
  );
  return records[0]!.get('n') as number;
}

describe('post lanes', () => {
  it('when a direct post is held inside Neo4j and the direct lane is full, then the next direct post waits unwritten, a channel post is written at once, and the waiting post is written once the lane frees', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    // The channel post's people and nodes are apart from the held reply's, which holds its own.
    const admin = await registerCreator(api);
    const member = await registerWriter(api);
    const channel = await channelWith(api, admin, [member]);
    // The author has written nothing in this thread yet: a reply creates the author's participation
    // record, whose key this test's own transaction holds (uncommitted), so the reply waits in Neo4j.
    const parent = await postMessage(api, reader.token, {
      content: 'parent',
      recipients: [`uid:${author.uid}`],
    });
    const session = api.ctx.db.driver.session();
    const lock = await session.beginTransaction();
    let held: Promise<PostAnswer> | undefined;
    let queued: Promise<PostAnswer> | undefined;
    const queuedContent = `queued ${reader.uid}`;
    try {
      await lock.run('CREATE (:Participation {uid: $uid, root_id: $root})', {
        uid: author.uid,
        root: parent.id,
      });
      held = post(author, { content: 'held reply', parent_id: parent.id });
      await eventually('the reply waiting for the lock inside Neo4j', async () => {
        // Only this test's reply: other test files share the database and may block their own.
        const { records } = await api.ctx.db.driver.executeQuery(
          "SHOW TRANSACTIONS YIELD status, parameters WHERE status STARTS WITH 'Blocked' " +
            'AND parameters.actor_uid = $uid RETURN count(*) AS n',
          { uid: author.uid },
        );
        return (records[0]!.get('n') as number) > 0;
      });
      queued = post(author, { content: queuedContent, recipients: [`uid:${reader.uid}`] });
      await eventually(
        'the second direct post waiting in its lane',
        async () => (await waiting('direct')) === 1,
      );

      const inChannel = await post(member, { content: 'into the channel', channel_ids: [channel.id] });
      expect(inChannel.status).toBe(200);
      expect(inChannel.body[0]?.ok).toBe(true);
      expect(await waiting('channel')).toBe(0);
      // Still queued behind the held reply: not in the store.
      expect(await messagesWithContent(queuedContent)).toBe(0);
      expect(await waiting('direct')).toBe(1);
      expect(await Promise.race([held, Promise.resolve('pending')])).toBe('pending');
    } finally {
      await lock.rollback();
      await session.close();
    }

    const [reply, second] = await Promise.all([held, queued]);
    expect(reply?.status).toBe(200);
    expect(reply?.body[0]?.ok).toBe(true);
    expect(second?.status).toBe(200);
    expect(second?.body[0]?.ok).toBe(true);
    expect(await messagesWithContent(queuedContent)).toBe(1);
    expect(await waiting('direct')).toBe(0);
  });
});
