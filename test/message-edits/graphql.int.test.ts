// The message edit operations over GraphQL: the same use cases as REST, with errors carrying the
// REST code and status in extensions.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerWriter, uniqueTag, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { MISSING_ID, TIMESTAMP, expectGone, managerWithBot, post, readOk } from './edit-helpers.js';

let api: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, bob] = await Promise.all([registerWriter(api), registerWriter(api)]);
});
afterAll(async () => {
  await api.close();
});

async function gql<T>(token: string | undefined, query: string, variables: Record<string, unknown> = {}) {
  return api.graphql<T>(query, variables, { token });
}

function errorOf(res: { body: { errors?: { extensions?: Record<string, unknown> }[] } }) {
  const extensions = res.body.errors?.[0]?.extensions ?? {};
  return { code: extensions.code, status: extensions.status };
}

describe('GraphQL deleteMessage and deleteMessages', () => {
  it('when the author deletes a message without descendants, then its child roots its own thread', async () => {
    const m = await post(api, alice.token, { content: 'parent' });
    const child = await post(api, alice.token, { content: 'child', parent_id: m.id });
    const grandchild = await post(api, alice.token, { content: 'grandchild', parent_id: child.id });
    const res = await gql<{ deleteMessage: { deleted: string[] } }>(
      alice.token,
      'mutation($id: String!) { deleteMessage(message_id: $id) { deleted } }',
      { id: m.id },
    );
    expect(res.body.data?.deleteMessage).toEqual({ deleted: [m.id] });
    await expectGone(api, alice.token, m.id);
    const after = await readOk(api, alice.token, grandchild.id);
    expect([after.root_id, after.parent_id]).toEqual([child.id, child.id]);
  });

  it('when a descendant is someone else’s, then the subtree deletion fails with 403 and nothing goes', async () => {
    const m = await post(api, alice.token, { content: 'parent', recipients: [bob.tag] });
    const reply = await post(api, bob.token, {
      content: 'bob reply',
      parent_id: m.id,
      recipients: [alice.tag],
    });
    const res = await gql(
      alice.token,
      'mutation($id: String!) { deleteMessage(message_id: $id, delete_descendants: true) { deleted } }',
      { id: m.id },
    );
    expect(errorOf(res)).toEqual({ code: 'not_author', status: 403 });
    await readOk(api, alice.token, m.id);
    await readOk(api, alice.token, reply.id);
  });

  it('when a batch mixes own and missing ids, then the own ones go and the others are item errors', async () => {
    const m = await post(api, alice.token, { content: 'own' });
    const res = await gql<{
      deleteMessages: { deleted: string[]; errors: { message_id: string; status: number }[] };
    }>(
      alice.token,
      'mutation($ids: [String!]!) { deleteMessages(message_ids: $ids) { deleted errors { message_id status code detail } } }',
      { ids: [m.id, MISSING_ID] },
    );
    expect(res.body.data?.deleteMessages).toEqual({
      deleted: [m.id],
      errors: [
        { message_id: MISSING_ID, status: 404, code: 'message_not_found', detail: 'Message not found.' },
      ],
    });
  });

  it('when no credentials are sent, then not_authenticated 401', async () => {
    const res = await gql(undefined, 'mutation { deleteMessage(message_id: "ffffffff") { deleted } }');
    expect(errorOf(res)).toEqual({ code: 'not_authenticated', status: 401 });
  });
});

describe('GraphQL author edits', () => {
  it('when the author sets public, subject, reply order and default outgoing, then the Message shows them', async () => {
    const m = await post(api, alice.token, { content: 'parent' });
    const r1 = await post(api, alice.token, { content: 'r1', parent_id: m.id });
    const r2 = await post(api, alice.token, { content: 'r2', parent_id: m.id });
    const res = await gql<Record<string, Record<string, unknown>>>(
      alice.token,
      `mutation($id: String!, $order: [String!], $next: String) {
        pub: setMessagePublic(message_id: $id, public: true) { public }
        subj: setSubject(message_id: $id, subject: "Plan") { subject }
        order: setReplyOrder(message_id: $id, reply_order: $order) { reply_order replies { id } }
        next: setDefaultOutgoing(message_id: $id, default_outgoing: $next) { default_outgoing }
      }`,
      { id: m.id, order: [r2.id, r1.id], next: r2.id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      pub: { public: true },
      subj: { subject: 'Plan' },
      order: { reply_order: [r2.id, r1.id], replies: [{ id: r1.id }, { id: r2.id }] },
      next: { default_outgoing: r2.id },
    });
  });

  it('when the subject is set twice or the reply order names a stranger, then 400 and 422', async () => {
    const m = await post(api, alice.token, { content: 'x', subject: 'Set' });
    const subject = await gql(
      alice.token,
      'mutation($id: String!) { setSubject(message_id: $id, subject: "Again") { id } }',
      {
        id: m.id,
      },
    );
    expect(errorOf(subject)).toEqual({ code: 'subject_already_set', status: 400 });
    const order = await gql(
      alice.token,
      'mutation($id: String!, $o: [String!]) { setReplyOrder(message_id: $id, reply_order: $o) { id } }',
      { id: m.id, o: [MISSING_ID] },
    );
    expect(errorOf(order)).toEqual({ code: 'invalid_reply_ids', status: 422 });
  });

  it('when someone else sets public, then not_author 403; on an invisible message, then 404', async () => {
    const m = await post(api, alice.token, { content: 'x', recipients: [bob.tag] });
    const hidden = await post(api, alice.token, { content: 'hidden' });
    const query = 'mutation($id: String!) { setMessagePublic(message_id: $id, public: true) { id } }';
    expect(errorOf(await gql(bob.token, query, { id: m.id }))).toEqual({ code: 'not_author', status: 403 });
    expect(errorOf(await gql(bob.token, query, { id: hidden.id }))).toEqual({
      code: 'message_not_found',
      status: 404,
    });
  });

  it('when a manager batch-publishes its bot’s messages, then they are updated', async () => {
    const { manager, botToken } = await managerWithBot(api);
    const a = await post(api, botToken, { content: 'a', recipients: [manager.tag] });
    const b = await post(api, botToken, { content: 'b', recipients: [manager.tag] });
    const res = await gql<{ setMessagesPublic: unknown }>(
      manager.token,
      'mutation($ids: [String!]!) { setMessagesPublic(message_ids: $ids, public: true) { updated errors { message_id } } }',
      { ids: [a.id, b.id] },
    );
    expect(res.body.data?.setMessagesPublic).toEqual({ updated: [a.id, b.id], errors: [] });
  });
});

describe('GraphQL tags', () => {
  it('when a recipient tags messages one by one and in a batch, then the tags query lists them', async () => {
    const p = uniqueTag('g');
    const m = await post(api, alice.token, { content: 'x', recipients: [bob.tag] });
    const n = await post(api, alice.token, { content: 'y', recipients: [bob.tag] });
    const one = await gql<{ setTags: { tags: string[] } }>(
      bob.token,
      'mutation($id: String!, $tags: [String!]!) { setTags(message_id: $id, tags: $tags) { tags } }',
      { id: m.id, tags: [`${p}-One`] },
    );
    expect(one.body.data?.setTags.tags).toEqual([`${p}-one`]);
    const batch = await gql<{ setTagsBatch: unknown }>(
      bob.token,
      'mutation($ids: [String!]!, $tags: [String!]!) { setTagsBatch(message_ids: $ids, tags: $tags) { updated errors { message_id } } }',
      { ids: [n.id], tags: [`${p}-two`] },
    );
    expect(batch.body.data?.setTagsBatch).toEqual({ updated: [n.id], errors: [] });
    const list = await gql<{ tags: string[] }>(alice.token, '{ tags }');
    expect(list.body.data?.tags.filter((t) => t.startsWith(p))).toEqual([`${p}-one`, `${p}-two`]);
  });

  it('when a tag is malformed, then validation_error 422', async () => {
    const m = await post(api, alice.token, { content: 'x' });
    const res = await gql(
      alice.token,
      'mutation($id: String!) { setTags(message_id: $id, tags: ["no way"]) { id } }',
      {
        id: m.id,
      },
    );
    expect(errorOf(res)).toEqual({ code: 'validation_error', status: 422 });
  });
});

describe('GraphQL read state and bookmarks', () => {
  it('when a recipient marks read and saves a message, then markRead, bookmark and bookmarks agree', async () => {
    const user = await registerWriter(api);
    const m = await post(api, alice.token, { content: 'for user', recipients: [user.tag] });
    const res = await gql<{
      markRead: { read: boolean; read_at: string };
      bookmark: { saved: boolean; saved_at: string };
    }>(
      user.token,
      `mutation($id: String!) {
        markRead(message_id: $id, read: true) { message_id read read_at }
        bookmark(message_id: $id) { message_id saved saved_at }
      }`,
      { id: m.id },
    );
    expect(res.body.data?.markRead).toEqual({
      message_id: m.id,
      read: true,
      read_at: expect.stringMatching(TIMESTAMP),
    });
    expect(res.body.data?.bookmark).toEqual({
      message_id: m.id,
      saved: true,
      saved_at: expect.stringMatching(TIMESTAMP),
    });

    const list = await gql<{
      bookmarks: { messages: { id: string; is_saved: boolean }[]; has_more: boolean };
    }>(user.token, '{ bookmarks(limit: 5) { messages { id is_saved } skip limit has_more } }');
    expect(list.body.data?.bookmarks).toEqual({
      messages: [{ id: m.id, is_saved: true }],
      skip: 0,
      limit: 5,
      has_more: false,
    });

    const unsaved = await gql<{ unbookmark: unknown }>(
      user.token,
      'mutation($id: String!) { unbookmark(message_id: $id) { message_id saved saved_at } }',
      { id: m.id },
    );
    expect(unsaved.body.data?.unbookmark).toEqual({ message_id: m.id, saved: false, saved_at: null });
  });

  it('when bookmarks asks for more than 100, then validation_error 422', async () => {
    const res = await gql(alice.token, '{ bookmarks(limit: 101) { has_more } }');
    expect(errorOf(res)).toEqual({ code: 'validation_error', status: 422 });
  });
});
