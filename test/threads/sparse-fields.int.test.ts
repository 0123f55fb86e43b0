// `fields=` on the list and traverse endpoints: each message keeps only the asked keys (`id`
// always), with the values the full answer has, and visibility holds on the cheaper path (a parent
// the reader may not see is still null).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PostedMessage, TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { expectValidationError, seedHiddenMiddleThread, view } from './thread-fixtures.js';

let api: TestServer;
let alice: TestUser, bob: TestUser, carol: TestUser;
let root: PostedMessage, hidden: PostedMessage, reply: PostedMessage;

beforeAll(async () => {
  api = await startTestServer();
  ({ alice, bob, carol, root, hidden, reply } = await seedHiddenMiddleThread(api, 'sparse'));
});
afterAll(async () => {
  await api.close();
});

type Message = Record<string, unknown> & { id: string };

function pick(message: object, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (message as Record<string, unknown>)[key]]));
}

describe('fields= on the list endpoints', () => {
  it('when a timeline asks for a few fields, then each message has exactly those (and id), valued as in the full answer', async () => {
    const full = await view(api, '/v1/messages/timeline?limit=10', carol.token);
    const keys = ['id', 'content', 'author', 'parent_id', 'timestamp'];
    const sparse = await view(
      api,
      '/v1/messages/timeline?limit=10&fields=content,author,parent_id,timestamp',
      carol.token,
    );
    expect(sparse.has_more).toBe(full.has_more);
    expect(sparse.messages.map((m) => Object.keys(m).sort())).toEqual(
      full.messages.map(() => [...keys].sort()),
    );
    expect(sparse.messages).toEqual(full.messages.map((m) => pick(m, keys)));
  });

  it('when a reader may not see a parent, then the sparse answer still gives parent_id null, and the message is its own root', async () => {
    const page = await view(api, `/v1/messages/${root.id}/thread?fields=parent_id,root_id`, carol.token);
    expect(page.messages).toEqual([
      { id: root.id, parent_id: null, root_id: root.id },
      { id: reply.id, parent_id: null, root_id: reply.id },
    ]);
    const bobs = await view(api, `/v1/messages/${root.id}/thread?fields=parent_id`, bob.token);
    expect(bobs.messages).toEqual([
      { id: root.id, parent_id: null },
      { id: hidden.id, parent_id: root.id },
      { id: reply.id, parent_id: hidden.id },
    ]);
  });

  it('when the fields include links, then they equal the full answer (replies filtered by visibility)', async () => {
    const keys = ['id', 'reply_ids', 'recipients', 'channel_ids', 'is_saved'];
    for (const user of [alice, bob, carol]) {
      const full = await view(api, `/v1/messages/${root.id}/thread`, user.token);
      const sparse = await view(api, `/v1/messages/${root.id}/thread?fields=${keys.join(',')}`, user.token);
      expect(sparse.messages).toEqual(full.messages.map((m) => pick(m, keys)));
    }
  });

  it('when search, inbox, history and the conversation view ask for fields, then they answer sparse messages', async () => {
    for (const path of [
      '/v1/messages/search?q=sparse&fields=content',
      '/v1/messages/inbox?fields=content',
      '/v1/messages/history?fields=content',
      `/v1/messages/conversation/${alice.uid}?fields=content`,
    ]) {
      const page = await view(api, path, bob.token);
      expect(page.messages.length).toBeGreaterThan(0);
      for (const message of page.messages) expect(Object.keys(message).sort()).toEqual(['content', 'id']);
    }
  });

  it('when a field name is unknown, then the answer is 422 naming fields', async () => {
    const res = await api.request('GET', '/v1/messages/timeline?fields=content,password_hash', {
      token: alice.token,
    });
    expectValidationError(res, 'fields');
    expect(JSON.stringify(res.body)).toContain('password_hash');
  });
});

describe('fields= on traverse-from', () => {
  it('when fields are asked, then each message keeps them and its depth, and replies only when asked', async () => {
    const path = `/v1/messages/traverse-from/${root.id}?down_depth=5`;
    const full = await api.request<{ messages: Message[]; edges: unknown[] }>('GET', path, {
      token: bob.token,
    });
    const sparse = await api.request<{ messages: Message[]; edges: unknown[] }>(
      'GET',
      `${path}&fields=content`,
      { token: bob.token },
    );
    expect(sparse.status).toBe(200);
    expect(sparse.body.edges).toEqual(full.body.edges);
    expect(sparse.body.messages).toEqual(full.body.messages.map((m) => pick(m, ['id', 'content', 'depth'])));

    const withReplies = await api.request<{ messages: Message[] }>('GET', `${path}&fields=content,replies`, {
      token: bob.token,
    });
    expect(withReplies.body.messages).toEqual(
      full.body.messages.map((m) => pick(m, ['id', 'content', 'depth', 'replies'])),
    );
  });
});
