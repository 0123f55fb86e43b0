// Inbox and history read per-(author, thread) participation records (schema 020) that every writer
// keeps: these tests change what an author wrote in a thread in each way the API allows (post,
// delete, delete with re-rooting, recipient add and removal, a burst of parallel replies) and check
// the two views through the API after each change.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PARTICIPATION_SLACK_MS } from '../../src/components/messages/participation-slack.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { idsOf, view } from './thread-fixtures.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const post = (user: TestUser, input: Record<string, unknown>) => postMessage(api, user.token, input);
const history = async (user: TestUser) =>
  idsOf(await view(api, '/v1/messages/history?limit=100', user.token));
const inbox = async (user: TestUser) => idsOf(await view(api, '/v1/messages/inbox?limit=100', user.token));

async function remove(user: TestUser, messageId: string, deleteDescendants = false): Promise<void> {
  const res = await api.request(
    'DELETE',
    `/v1/messages/${messageId}?delete_descendants=${deleteDescendants}`,
    {
      token: user.token,
    },
  );
  expect(res.status).toBe(200);
}

describe('history after deletions', () => {
  it('when my newest message of a thread is deleted, then the thread falls back to my message before it; when all of mine there go, the thread leaves my history', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const first = await post(bob, { content: 'first thread', recipients: [alice.tag] });
    const mineInFirst = await post(alice, { content: 'early answer', parent_id: first.id });
    const second = await post(alice, { content: 'second thread' });
    const lateInFirst = await post(alice, { content: 'late answer', parent_id: first.id });
    expect(await history(alice)).toEqual([first.id, second.id]);

    await remove(alice, lateInFirst.id);
    expect(await history(alice)).toEqual([second.id, first.id]);

    await remove(alice, mineInFirst.id);
    expect(await history(alice)).toEqual([second.id]);
    // bob's own history is untouched by alice's deletions.
    expect(await history(bob)).toEqual([first.id]);
  });

  it('when a root is deleted without its replies, then each surviving subtree is a thread of its own in its authors’ histories and inboxes', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await post(alice, { content: 'root', public: true });
    const bobReply = await post(bob, { content: 'bob replies', parent_id: root.id, public: true });
    const carolReply = await post(carol, {
      content: 'carol answers bob',
      parent_id: bobReply.id,
      recipients: [bob.tag],
    });
    expect(await history(bob)).toEqual([root.id]);
    expect(await history(carol)).toEqual([root.id]);
    expect(await inbox(carol)).toEqual([carolReply.id]);

    await remove(alice, root.id);
    expect(await history(alice)).toEqual([]);
    expect(await history(bob)).toEqual([bobReply.id]);
    expect(await history(carol)).toEqual([bobReply.id]);
    // carol addressed bob in what is now bob's reply's thread: it stays in her inbox, there.
    expect(await inbox(carol)).toEqual([carolReply.id]);
    expect(await inbox(bob)).toEqual([carolReply.id]);
  });

  it('when a whole subtree is deleted, then its thread leaves my history and the inboxes it was in', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const oldest = await post(alice, { content: 'the oldest thread' });
    const older = await post(alice, { content: 'an older thread' });
    const root = await post(alice, { content: 'root', recipients: [bob.tag] });
    const reply = await post(alice, { content: 'reply', parent_id: root.id, recipients: [bob.tag] });
    await post(alice, { content: 'deeper', parent_id: reply.id });
    expect(await history(alice)).toEqual([root.id, older.id, oldest.id]);
    expect(await inbox(bob)).toEqual([reply.id]);

    await remove(alice, root.id, true);
    expect(await history(alice)).toEqual([older.id, oldest.id]);
    // No record of the deleted thread is left to take a place on a page.
    const first = await view(api, '/v1/messages/history?limit=1', alice.token);
    expect(idsOf(first)).toEqual([older.id]);
    expect(first.has_more).toBe(true);
    expect(await inbox(alice)).toEqual([]);
    expect(await inbox(bob)).toEqual([]);
  });
});

describe('inbox after recipient changes', () => {
  it('when the only other recipient of my thread is removed, then it leaves my inbox; when someone is added again, it comes back', async () => {
    const [alice, bob, carol] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const note = await post(alice, { content: 'to bob', recipients: [bob.tag] });
    expect(await inbox(alice)).toEqual([note.id]);

    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: alice.token,
      body: { recipient_uid: bob.uid, message_id: note.id },
    });
    expect(removed.status).toBe(200);
    expect(await inbox(alice)).toEqual([]);
    expect(await inbox(bob)).toEqual([]);
    // Still her thread: history does not depend on recipients.
    expect(await history(alice)).toEqual([note.id]);

    const added = await api.request('POST', '/v1/recipients/add', {
      token: alice.token,
      body: { message_id: note.id, recipients: [{ uid: carol.uid, public: true }] },
    });
    expect(added.status).toBe(200);
    expect(await inbox(alice)).toEqual([note.id]);
    expect(await inbox(carol)).toEqual([note.id]);
  });

  it('when one of two addressed messages of mine loses its recipient, then the thread stays in my inbox through the other', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const root = await post(alice, { content: 'to bob', recipients: [bob.tag] });
    const again = await post(alice, { content: 'to bob again', parent_id: root.id, recipients: [bob.tag] });
    const aside = await post(alice, { content: 'aside', parent_id: again.id });
    const removed = await api.request('DELETE', '/v1/recipients/remove', {
      token: alice.token,
      body: { recipient_uid: bob.uid, message_id: root.id },
    });
    expect(removed.status).toBe(200);
    expect(await inbox(alice)).toEqual([aside.id]);
  });
});

describe('records that lag behind', () => {
  it('when I reply in an older thread within the slack of its record, then history still orders it by that reply', async () => {
    const alice = await registerWriter(api);
    // Plans are compiled on first use; a warm service posts these three well within the slack.
    const warm = await post(alice, { content: 'warm-up' });
    await post(alice, { content: 'warm-up reply', parent_id: warm.id });
    await history(alice);
    const older = await post(alice, { content: 'older thread' });
    const newer = await post(alice, { content: 'newer thread' });
    const reply = await post(alice, { content: 'back in the older one', parent_id: older.id });

    const [record] = await api.ctx.db.runText(
      `MATCH (p:Participation {uid: $uid, root_id: $root}) RETURN p.last_wrote_at.epochMillis AS at`,
      { uid: alice.uid, root: older.id },
    );
    const replied = Date.parse(String(reply.timestamp));
    const started = Date.parse(String(older.timestamp));
    // The reply leaves the record alone when it came within the slack (the usual case here), and
    // moves it otherwise; either way the record is never ahead of the newest message nor lags more.
    if (replied - started <= PARTICIPATION_SLACK_MS) expect(record?.at).toBe(started);
    else expect(record?.at).toBe(replied);

    expect(await history(alice)).toEqual([older.id, newer.id, warm.id]);
    const first = await view(api, '/v1/messages/history?limit=1', alice.token);
    expect(idsOf(first)).toEqual([older.id]);
    expect(first.has_more).toBe(true);
    expect(idsOf(await view(api, '/v1/messages/history?limit=1&skip=1', alice.token))).toEqual([newer.id]);
  });

  it('when one author posts a burst of replies into one thread at once, then the record stays within the slack of the newest and the thread is ordered by it', async () => {
    const [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const thread = await post(alice, { content: 'burst thread' });
    const burst = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        post(alice, { content: `burst ${i}`, parent_id: thread.id, recipients: i === 7 ? [bob.tag] : [] }),
      ),
    );
    expect(burst).toHaveLength(16);
    const rows = await api.ctx.db.runText(
      `MATCH (m:Message {author_uid: $uid, root_id: $root})
       WITH count(m) AS written, max(m.created_at).epochMillis AS newest
       MATCH (p:Participation {uid: $uid, root_id: $root})
       RETURN written, newest - p.last_wrote_at.epochMillis AS lag, p.addressed AS addressed`,
      { uid: alice.uid, root: thread.id },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ written: 17, addressed: true });
    expect(rows[0]?.lag).toBeGreaterThanOrEqual(0);
    expect(rows[0]?.lag).toBeLessThanOrEqual(PARTICIPATION_SLACK_MS);

    const other = await post(alice, { content: 'another thread' });
    const last = await post(alice, { content: 'one more in the burst thread', parent_id: thread.id });
    expect(await history(alice)).toEqual([thread.id, other.id]);
    expect(await inbox(alice)).toEqual([last.id]);
  });
});
