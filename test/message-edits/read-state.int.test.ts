// Read and saved state: POST /v1/messages/{message_id}/read, PUT and DELETE
// /v1/messages/{message_id}/bookmark, GET /v1/messages/bookmarks, and is_saved on messages.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { MISSING_ID, TIMESTAMP, expectError, post, readOk, type Message } from './edit-helpers.js';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let reader: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob, carol, reader] = await Promise.all([
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
    registerUser(api),
  ]);
});
afterAll(async () => {
  await api.close();
});

interface ReadState {
  message_id: string;
  read: boolean;
  read_at: string | null;
}

interface Page {
  messages: Message[];
  skip: number;
  limit: number;
  has_more: boolean;
}

function markRead(token: string | undefined, id: string, body: unknown) {
  return api.request<ReadState>('POST', `/v1/messages/${id}/read`, { token, body });
}

function save(token: string | undefined, id: string) {
  return api.request<{ message_id: string; saved: boolean; saved_at?: string }>(
    'PUT',
    `/v1/messages/${id}/bookmark`,
    { token },
  );
}

function unsave(token: string | undefined, id: string) {
  return api.request<{ message_id: string; saved: boolean }>('DELETE', `/v1/messages/${id}/bookmark`, {
    token,
  });
}

function bookmarks(token: string | undefined, query = '') {
  return api.request<Page>('GET', `/v1/messages/bookmarks${query}`, { token });
}

function readAtOf(message: Message, uid: string): string | null | undefined {
  return message.recipients.find((r) => r.uid === uid)?.read_at;
}

describe('POST /v1/messages/{message_id}/read', () => {
  it('when a recipient marks a message read, then read_at is set on its receivers edge and kept on a repeat', async () => {
    const m = await post(api, alice.token, { content: 'for bob', recipients: [bob.tag] });
    const res = await markRead(bob.token, m.id, { read: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: m.id, read: true, read_at: expect.stringMatching(TIMESTAMP) });
    expect(readAtOf(await readOk(api, alice.token, m.id), bob.uid)).toBe(res.body.read_at);

    const again = await markRead(bob.token, m.id, { read: true });
    expect(again.body.read_at).toBe(res.body.read_at);
  });

  it('when a recipient marks it unread, then read_at is cleared', async () => {
    const m = await post(api, alice.token, { content: 'for bob', recipients: [bob.tag] });
    await markRead(bob.token, m.id, { read: true });
    const res = await markRead(bob.token, m.id, { read: false });
    expect(res.body).toEqual({ message_id: m.id, read: false, read_at: null });
    expect(readAtOf(await readOk(api, bob.token, m.id), bob.uid)).toBeNull();
  });

  it('when the body is empty, then the message is marked read', async () => {
    const m = await post(api, alice.token, { content: 'for bob', recipients: [bob.tag] });
    const res = await markRead(bob.token, m.id, {});
    expect(res.body.read).toBe(true);
  });

  it('when the caller sees the message without being a recipient, then read false and nothing stored', async () => {
    const m = await post(api, alice.token, { content: 'public', public: true, recipients: [bob.tag] });
    const res = await markRead(carol.token, m.id, { read: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: m.id, read: false, read_at: null });
    const own = await markRead(alice.token, m.id, { read: true });
    expect(own.body).toEqual({ message_id: m.id, read: false, read_at: null });
    const after = await readOk(api, alice.token, m.id);
    expect(after.recipients.map((r) => r.uid)).toEqual([bob.uid]);
    expect(readAtOf(after, bob.uid)).toBeNull();
  });

  it('when the message is invisible or missing, then the same 404', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    const invisible = await markRead(carol.token, m.id, { read: true });
    const missing = await markRead(carol.token, MISSING_ID, { read: true });
    expectError(invisible, 404, 'message_not_found');
    expect(invisible.body).toEqual(missing.body);
  });

  it('when read is not a boolean, then 422; without messages.write 403; without credentials 401', async () => {
    const m = await post(api, alice.token, { content: 'x', recipients: [bob.tag, reader.tag] });
    expectError(await markRead(bob.token, m.id, { read: 'yes' }), 422, 'validation_error');
    expectError(await markRead(reader.token, m.id, { read: true }), 403, 'insufficient_scope');
    expectError(await markRead(undefined, m.id, { read: true }), 401, 'not_authenticated');
    expect(readAtOf(await readOk(api, alice.token, m.id), reader.uid)).toBeNull();
  });
});

describe('PUT and DELETE /v1/messages/{message_id}/bookmark', () => {
  it('when a message is saved twice, then 200 both times with the first saved_at, and is_saved is true', async () => {
    const m = await post(api, alice.token, { content: 'save me', recipients: [bob.tag] });
    const first = await save(bob.token, m.id);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message_id: m.id, saved: true, saved_at: expect.stringMatching(TIMESTAMP) });
    const second = await save(bob.token, m.id);
    expect(second.body).toEqual(first.body);
    expect((await readOk(api, bob.token, m.id)).is_saved).toBe(true);
    expect((await readOk(api, alice.token, m.id)).is_saved).toBe(false);
  });

  it('when a saved message is unsaved, then saved false and is_saved false; unsaving again is still 200', async () => {
    const m = await post(api, alice.token, { content: 'save me' });
    await save(alice.token, m.id);
    const res = await unsave(alice.token, m.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: m.id, saved: false });
    expect((await readOk(api, alice.token, m.id)).is_saved).toBe(false);
    expect((await unsave(alice.token, m.id)).body).toEqual({ message_id: m.id, saved: false });
  });

  it('when the message is invisible, then 404 for save and unsave', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    expectError(await save(carol.token, m.id), 404, 'message_not_found');
    expectError(await unsave(carol.token, m.id), 404, 'message_not_found');
    expectError(await save(carol.token, MISSING_ID), 404, 'message_not_found');
  });

  it('when the caller lacks messages.write or credentials, then 403 or 401', async () => {
    const m = await post(api, alice.token, { content: 'public', public: true });
    expectError(await save(reader.token, m.id), 403, 'insufficient_scope');
    expectError(await unsave(reader.token, m.id), 403, 'insufficient_scope');
    expectError(await save(undefined, m.id), 401, 'not_authenticated');
    expectError(await save(alice.token, 'nope'), 422, 'validation_error');
  });
});

describe('GET /v1/messages/bookmarks', () => {
  it('when several messages are saved, then they are listed newest bookmark first, paginated', async () => {
    const user = await registerWriter(api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const m = await post(api, alice.token, { content: `m${i}`, recipients: [user.tag] });
      ids.push(m.id);
    }
    // Saved in the order 1, 0, 2: the newest bookmark is 2, then 0, then 1.
    for (const i of [1, 0, 2]) expect((await save(user.token, ids[i]!)).status).toBe(200);

    const all = await bookmarks(user.token);
    expect(all.status).toBe(200);
    expect({ ...all.body, messages: all.body.messages.map((m) => m.id) }).toEqual({
      messages: [ids[2], ids[0], ids[1]],
      skip: 0,
      limit: 15,
      has_more: false,
    });
    expect(all.body.messages.every((m) => m.is_saved)).toBe(true);

    const page = await bookmarks(user.token, '?skip=1&limit=1');
    expect({ ids: page.body.messages.map((m) => m.id), has_more: page.body.has_more }).toEqual({
      ids: [ids[0]],
      has_more: true,
    });
  });

  it('when a saved message becomes invisible, then it is left out of the list', async () => {
    const user = await registerWriter(api);
    const m = await post(api, alice.token, { content: 'public for now', public: true });
    await save(user.token, m.id);
    expect((await bookmarks(user.token)).body.messages.map((x) => x.id)).toEqual([m.id]);
    const res = await api.request('PATCH', `/v1/messages/${m.id}/public`, {
      token: alice.token,
      body: { public: false },
    });
    expect(res.status).toBe(200);
    expect((await bookmarks(user.token)).body.messages).toEqual([]);
  });

  it('when the page is out of range, then 422; a read-only caller gets 200; no credentials 401', async () => {
    expectError(await bookmarks(alice.token, '?limit=101'), 422, 'validation_error');
    expectError(await bookmarks(alice.token, '?skip=-1'), 422, 'validation_error');
    expect((await bookmarks(reader.token)).status).toBe(200);
    expectError(await bookmarks(undefined), 401, 'not_authenticated');
  });
});
