// Writes that race each other (security review #8, the peer run's deadlock, parallel adds): under
// any interleaving no request answers 500, nothing is left half-written, and each change is told
// once. These run real concurrent requests against the real database; they assert outcomes, never
// timings.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import neo4j from 'neo4j-driver';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  await api.close();
});

interface CreateResult {
  ok: boolean;
  message?: { id: string };
  error?: { status: number; code: string };
}

interface EventPage {
  notifications: { event: { type: string; content: { messages: { id: string }[] } } }[];
}

async function reply(user: TestUser, parentId: string, content: string) {
  return api.request<CreateResult[]>('POST', '/v1/messages', {
    token: user.token,
    body: { messages: [{ content, parent_id: parentId }] },
  });
}

describe('delete with descendants racing replies', () => {
  it('when the thread is deleted right after a reply commits, then the reply answers what it wrote, and the reply is gone after', async () => {
    const author = await registerWriter(api);
    const root = await postMessage(api, author.token, { content: 'root', public: true });
    // The deletion runs right after the reply commits, before the post answers: the answer was read
    // by the write itself, so it shows the reply as committed, and the deletion that came after it
    // took it with the thread.
    let armed = true;
    let deletion: { status: number; body: { deleted: string[] } } | undefined;
    api.ctx.db.onCommit(async ({ statements }) => {
      if (!armed || !statements.has('messages/write-post')) return;
      armed = false;
      deletion = await api.request<{ deleted: string[] }>(
        'DELETE',
        `/v1/messages/${root.id}?delete_descendants=true`,
        { token: author.token },
      );
    });
    const res = await reply(author, root.id, 'just in time');
    expect(res.status).toBe(200);
    const [item] = res.body;
    expect(item).toMatchObject({
      index: 0,
      ok: true,
      message: { content: 'just in time', parent_id: root.id },
    });
    expect(deletion?.status).toBe(200);
    expect(deletion?.body.deleted).toContain(item!.message!.id);
    const after = await api.request('GET', `/v1/messages/${item!.message!.id}`, { token: author.token });
    expect(after.status).toBe(404);
  });

  it('when replies race a subtree deletion, then no 500, and every stored reply has a live parent, root and edge', async () => {
    const [author, stranger] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const statuses: number[] = [];
    const survivors: string[] = [];
    for (let round = 0; round < 8; round++) {
      const root = await postMessage(api, author.token, { content: `root ${round}`, public: true });
      const middle = (await reply(author, root.id, `middle ${round}`)).body[0]!.message!;
      const racing = [
        api.request<{ deleted: string[] }>('DELETE', `/v1/messages/${root.id}?delete_descendants=true`, {
          token: author.token,
        }),
        ...[author, stranger, author, stranger].map((user, i) =>
          reply(user, middle.id, `late ${round}.${i}`),
        ),
      ];
      const answers = await Promise.all(racing);
      for (const answer of answers) statuses.push(answer.status);
      for (const answer of answers.slice(1)) {
        const item = (answer.body as CreateResult[])[0]!;
        if (item.ok) survivors.push(item.message!.id);
        else expect(item.error).toMatchObject({ status: 404, code: 'message_not_found' });
      }
      const deletion = answers[0]!;
      // All or nothing: either the whole subtree went (no stranger's reply was in it when it did),
      // or the deletion was refused with 403 and the stranger's reply is still there.
      expect([200, 403]).toContain(deletion.status);
    }
    expect(statuses.filter((status) => status >= 500)).toEqual([]);

    // Straight from the database: every reply that exists points at a parent and root that exist,
    // through a REPLY edge.
    const driver = neo4j.driver(
      process.env.SKEIN_TEST_NEO4J_URI!,
      neo4j.auth.basic('neo4j', process.env.SKEIN_TEST_NEO4J_PASSWORD!),
    );
    try {
      const result = await driver.executeQuery(
        `UNWIND $ids AS id
         MATCH (m:Message {id: id})
         OPTIONAL MATCH (parent:Message {id: m.parent_id})
         OPTIONAL MATCH (root:Message {id: m.root_id})
         RETURN m.id AS id, parent IS NOT NULL AS has_parent, root IS NOT NULL AS has_root,
                EXISTS { (parent)-[:REPLY]->(m) } AS has_edge`,
        { ids: survivors },
      );
      const broken = result.records
        .map((r) => r.toObject())
        .filter((r) => !r.has_parent || !r.has_root || !r.has_edge);
      expect(broken).toEqual([]);
    } finally {
      await driver.close();
    }
  });
});

describe('two-way posting', () => {
  it('when two members post to each other with many posts in flight, then every post succeeds and each is told once', async () => {
    const [a, b] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const posts = Array.from({ length: 40 }, (_, i) => {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      return api.request<CreateResult[]>('POST', '/v1/messages', {
        token: from.token,
        body: { messages: [{ content: `ping-pong ${i}`, recipients: [to.tag] }] },
      });
    });
    const answers = await Promise.all(posts);
    expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(answers.every((r) => r.body[0]!.ok)).toBe(true);
    for (const user of [a, b]) {
      const page = await api.request<EventPage>('GET', '/v1/notifications?limit=100', { token: user.token });
      expect(page.body.notifications.filter((n) => n.event.type === 'sent')).toHaveLength(20);
    }
  });
});

describe('parallel identical recipient adds', () => {
  it('when sixteen identical adds race, then one edge, "added" exactly once, one added event', async () => {
    const [author, newcomer] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const message = await postMessage(api, author.token, { content: 'add me once' });
    const answers = await Promise.all(
      Array.from({ length: 16 }, () =>
        api.request<{ added: unknown[]; unchanged: unknown[] }>('POST', '/v1/recipients/add', {
          token: author.token,
          body: { message_id: message.id, recipients: [newcomer.tag] },
        }),
      ),
    );
    expect(answers.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(answers.filter((r) => r.body.added.length === 1)).toHaveLength(1);
    expect(answers.filter((r) => r.body.unchanged.length === 1)).toHaveLength(15);
    const page = await api.request<EventPage>('GET', '/v1/notifications', { token: newcomer.token });
    expect(page.body.notifications.filter((n) => n.event.type === 'added')).toHaveLength(1);
    const read = await api.request<{ recipients: { uid: string }[] }>('GET', `/v1/messages/${message.id}`, {
      token: author.token,
    });
    expect(read.body.recipients.filter((r) => r.uid === newcomer.uid)).toHaveLength(1);
  });

  it('when a CC recipient adds a hidden BCC recipient, then the answer says "added", as for anyone else', async () => {
    const [author, cc, hidden, other] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const message = await postMessage(api, author.token, {
      content: 'who is hidden?',
      recipients: [cc.tag, { uid: hidden.uid, public: false }],
    });
    const probe = async (user: TestUser) =>
      (
        await api.request<{ added: { uid: string }[]; unchanged: unknown[] }>('POST', '/v1/recipients/add', {
          token: cc.token,
          body: { message_id: message.id, recipients: [{ uid: user.uid, notify: false }] },
        })
      ).body;
    const hiddenAnswer = await probe(hidden);
    const otherAnswer = await probe(other);
    expect(hiddenAnswer.added.map((a) => a.uid)).toEqual([hidden.uid]);
    expect(otherAnswer.added.map((a) => a.uid)).toEqual([other.uid]);
    expect(hiddenAnswer.unchanged).toEqual([]);
    // The CC recipient's entry was laid over the hidden one (decision 022): it reads back both alike.
    const seen = await api.request<{ recipients: { uid: string }[] }>('GET', `/v1/messages/${message.id}`, {
      token: cc.token,
    });
    expect(seen.body.recipients.map((r) => r.uid)).toEqual(expect.arrayContaining([hidden.uid, other.uid]));
  });
});
