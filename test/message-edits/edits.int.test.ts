// Author edits and tagging: PATCH /v1/messages/{message_id}/public, PATCH /v1/messages/public/batch,
// PATCH .../subject, GET /v1/messages/tags, PATCH .../tags, PATCH /v1/messages/tags/batch.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginAdmin, registerUser, registerWriter, uniqueTag, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  MISSING_ID,
  expectError,
  managerWithBot,
  post,
  read,
  readOk,
  type BatchItemError,
  type Message,
} from './edit-helpers.js';

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

function patch<T = Message>(token: string | undefined, path: string, body: unknown) {
  return api.request<T>('PATCH', path, { token, body });
}

describe('PATCH /v1/messages/{message_id}/public', () => {
  it('when the author makes a message public and private again, then strangers can and then cannot read it', async () => {
    const m = await post(api, alice.token, { content: 'soon public' });
    const on = await patch(alice.token, `/v1/messages/${m.id}/public`, { public: true });
    expect(on.status).toBe(200);
    expect({ id: on.body.id, public: on.body.public }).toEqual({ id: m.id, public: true });
    expect((await readOk(api, carol.token, m.id)).public).toBe(true);

    const off = await patch(alice.token, `/v1/messages/${m.id}/public`, { public: false });
    expect(off.status).toBe(200);
    expect(off.body.public).toBe(false);
    expect((await read(api, carol.token, m.id)).status).toBe(404);
  });

  it('when a manager changes its bot’s message with its own token or a delegated one, then 200', async () => {
    const { manager, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot', recipients: [manager.tag] });
    const own = await patch(manager.token, `/v1/messages/${m.id}/public`, { public: true });
    expect({ status: own.status, public: own.body.public }).toEqual({ status: 200, public: true });
    const delegated = await patch(botToken, `/v1/messages/${m.id}/public`, { public: false });
    expect({ status: delegated.status, public: delegated.body.public }).toEqual({
      status: 200,
      public: false,
    });
  });

  it('when a manager who saw its bot’s message only because it was public makes it private, then 200 with it', async () => {
    const { manager, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot public', public: true });
    const res = await patch(manager.token, `/v1/messages/${m.id}/public`, { public: false });
    expect(res.status).toBe(200);
    expect({ id: res.body.id, public: res.body.public }).toEqual({ id: m.id, public: false });
    expect((await read(api, manager.token, m.id)).status).toBe(404);
  });

  it('when a recipient or an admin changes someone else’s message, then 403 not_author', async () => {
    const m = await post(api, alice.token, { content: 'cc bob', recipients: [bob.tag], public: true });
    expectError(await patch(bob.token, `/v1/messages/${m.id}/public`, { public: false }), 403, 'not_author');
    expectError(
      await patch(await loginAdmin(api), `/v1/messages/${m.id}/public`, { public: false }),
      403,
      'not_author',
    );
    expect((await readOk(api, alice.token, m.id)).public).toBe(true);
  });

  it('when the message is invisible or missing, then the same 404', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    const invisible = await patch(carol.token, `/v1/messages/${m.id}/public`, { public: true });
    const missing = await patch(carol.token, `/v1/messages/${MISSING_ID}/public`, { public: true });
    expectError(invisible, 404, 'message_not_found');
    expect(invisible.body).toEqual(missing.body);
    expect((await readOk(api, alice.token, m.id)).public).toBe(false);
  });

  it('when the body is not {public: boolean}, then 422', async () => {
    const m = await post(api, alice.token, { content: 'x' });
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/public`, { public: 'yes' }),
      422,
      'validation_error',
    );
    expectError(await patch(alice.token, `/v1/messages/${m.id}/public`, {}), 422, 'validation_error');
  });

  it('when the caller lacks messages.write or credentials, then 403 or 401', async () => {
    const m = await post(api, alice.token, { content: 'x', public: true });
    expectError(
      await patch(reader.token, `/v1/messages/${m.id}/public`, { public: false }),
      403,
      'insufficient_scope',
    );
    expectError(
      await patch(undefined, `/v1/messages/${m.id}/public`, { public: false }),
      401,
      'not_authenticated',
    );
  });
});

describe('PATCH /v1/messages/public/batch', () => {
  it('when some messages are not the caller’s, then the others change and each other one is an item error', async () => {
    const a1 = await post(api, alice.token, { content: 'a1' });
    const a2 = await post(api, alice.token, { content: 'a2' });
    const bobs = await post(api, bob.token, { content: 'bob', recipients: [alice.tag] });
    const hidden = await post(api, bob.token, { content: 'hidden' });
    const res = await patch<{ updated: string[]; errors: BatchItemError[] }>(
      alice.token,
      '/v1/messages/public/batch',
      { message_ids: [a1.id, bobs.id, hidden.id, a2.id], public: true },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      updated: [a1.id, a2.id],
      errors: [
        { message_id: bobs.id, status: 403, code: 'not_author', detail: expect.any(String) },
        { message_id: hidden.id, status: 404, code: 'message_not_found', detail: 'Message not found.' },
      ],
    });
    expect((await readOk(api, carol.token, a1.id)).public).toBe(true);
    expect((await readOk(api, carol.token, a2.id)).public).toBe(true);
    expect((await readOk(api, bob.token, bobs.id)).public).toBe(false);
  });

  it('when the body is malformed or the caller unauthenticated, then 422 or 401', async () => {
    expectError(
      await patch(alice.token, '/v1/messages/public/batch', { message_ids: [], public: true }),
      422,
      'validation_error',
    );
    expectError(
      await patch(alice.token, '/v1/messages/public/batch', { message_ids: [MISSING_ID] }),
      422,
      'validation_error',
    );
    expectError(
      await patch(undefined, '/v1/messages/public/batch', { message_ids: [MISSING_ID], public: true }),
      401,
      'not_authenticated',
    );
    expectError(
      await patch(reader.token, '/v1/messages/public/batch', { message_ids: [MISSING_ID], public: true }),
      403,
      'insufficient_scope',
    );
  });
});

describe('PATCH /v1/messages/{message_id}/subject', () => {
  it('when the author adds a subject, then 200 with it, and a second subject is 400 subject_already_set', async () => {
    const m = await post(api, alice.token, { content: 'needs a subject' });
    const first = await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: '  Weekly plan  ' });
    expect(first.status).toBe(200);
    expect(first.body.subject).toBe('Weekly plan');
    const second = await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: 'Other' });
    expectError(second, 400, 'subject_already_set');
    expect((await readOk(api, alice.token, m.id)).subject).toBe('Weekly plan');
  });

  it('when the message was posted with a subject, then 400 subject_already_set', async () => {
    const m = await post(api, alice.token, { content: 'x', subject: 'Given' });
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: 'New' }),
      400,
      'subject_already_set',
    );
  });

  it('when the subject is exactly 72 characters, then 200; at 73, then 422 and nothing is stored', async () => {
    const m = await post(api, alice.token, { content: 'x' });
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: 's'.repeat(73) }),
      422,
      'validation_error',
    );
    expect((await readOk(api, alice.token, m.id)).subject).toBeNull();
    const ok = await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: 's'.repeat(72) });
    expect({ status: ok.status, length: ok.body.subject?.length }).toEqual({ status: 200, length: 72 });
  });

  it('when the subject is blank or missing, then 400; when not a string, then 422', async () => {
    const m = await post(api, alice.token, { content: 'x' });
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: '   ' }),
      400,
      'bad_request',
    );
    expectError(await patch(alice.token, `/v1/messages/${m.id}/subject`, {}), 400, 'missing_field');
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/subject`, { subject: 7 }),
      422,
      'validation_error',
    );
    expect((await readOk(api, alice.token, m.id)).subject).toBeNull();
  });

  it('when a manager adds a subject to its bot’s message, then 200; a recipient or admin gets 403', async () => {
    const { manager, botToken } = await managerWithBot(api);
    const m = await post(api, botToken, { content: 'bot', recipients: [manager.tag, bob.tag], public: true });
    expectError(
      await patch(bob.token, `/v1/messages/${m.id}/subject`, { subject: 'Bob' }),
      403,
      'not_author',
    );
    expectError(
      await patch(await loginAdmin(api), `/v1/messages/${m.id}/subject`, { subject: 'Admin' }),
      403,
      'not_author',
    );
    const res = await patch(manager.token, `/v1/messages/${m.id}/subject`, { subject: 'From the manager' });
    expect({ status: res.status, subject: res.body.subject }).toEqual({
      status: 200,
      subject: 'From the manager',
    });
  });

  it('when the message is invisible, then 404; without messages.write 403; without credentials 401', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    expectError(
      await patch(carol.token, `/v1/messages/${m.id}/subject`, { subject: 'S' }),
      404,
      'message_not_found',
    );
    const pub = await post(api, alice.token, { content: 'public', public: true });
    expectError(
      await patch(reader.token, `/v1/messages/${pub.id}/subject`, { subject: 'S' }),
      403,
      'insufficient_scope',
    );
    expectError(
      await patch(undefined, `/v1/messages/${pub.id}/subject`, { subject: 'S' }),
      401,
      'not_authenticated',
    );
  });
});

describe('PATCH /v1/messages/{message_id}/tags', () => {
  it('when a recipient tags a message, then the set is replaced, lower-cased and deduplicated', async () => {
    const m = await post(api, alice.token, { content: 'x', recipients: [bob.tag], tags: ['old'] });
    const res = await patch(bob.token, `/v1/messages/${m.id}/tags`, {
      tags: ['Project:Skein', 'project:skein', 'a/b-c_d.e'],
    });
    expect(res.status).toBe(200);
    expect(res.body.tags).toEqual(['project:skein', 'a/b-c_d.e']);
    expect((await readOk(api, alice.token, m.id)).tags).toEqual(['project:skein', 'a/b-c_d.e']);
  });

  it('when the tags are an empty list, then the message has none', async () => {
    const m = await post(api, alice.token, { content: 'x', tags: ['gone'] });
    const res = await patch(alice.token, `/v1/messages/${m.id}/tags`, { tags: [] });
    expect({ status: res.status, tags: res.body.tags }).toEqual({ status: 200, tags: [] });
  });

  it('when a tag has a bad character or is longer than 64, then 422 and the tags stay', async () => {
    const m = await post(api, alice.token, { content: 'x', tags: ['keep'] });
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/tags`, { tags: ['bad tag'] }),
      422,
      'validation_error',
    );
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/tags`, { tags: ['t'.repeat(65)] }),
      422,
      'validation_error',
    );
    expectError(
      await patch(alice.token, `/v1/messages/${m.id}/tags`, { tags: [''] }),
      422,
      'validation_error',
    );
    expect((await readOk(api, alice.token, m.id)).tags).toEqual(['keep']);
  });

  it('when tags is missing, then 400 missing_field', async () => {
    const m = await post(api, alice.token, { content: 'x' });
    expectError(await patch(alice.token, `/v1/messages/${m.id}/tags`, {}), 400, 'missing_field');
  });

  it('when the message is invisible, then 404; without messages.write 403; without credentials 401', async () => {
    const m = await post(api, alice.token, { content: 'private' });
    expectError(
      await patch(carol.token, `/v1/messages/${m.id}/tags`, { tags: ['x'] }),
      404,
      'message_not_found',
    );
    const pub = await post(api, alice.token, { content: 'public', public: true });
    expectError(
      await patch(reader.token, `/v1/messages/${pub.id}/tags`, { tags: ['x'] }),
      403,
      'insufficient_scope',
    );
    expectError(
      await patch(undefined, `/v1/messages/${pub.id}/tags`, { tags: ['x'] }),
      401,
      'not_authenticated',
    );
    expect((await readOk(api, alice.token, m.id)).tags).toEqual([]);
  });
});

describe('PATCH /v1/messages/tags/batch', () => {
  it('when some messages are invisible, then the visible ones are tagged and the others are 404 items', async () => {
    const a = await post(api, alice.token, { content: 'a', recipients: [bob.tag] });
    const pub = await post(api, carol.token, { content: 'pub', public: true });
    const hidden = await post(api, carol.token, { content: 'hidden' });
    const res = await patch<{ updated: string[]; errors: BatchItemError[] }>(
      bob.token,
      '/v1/messages/tags/batch',
      {
        message_ids: [a.id, hidden.id, pub.id],
        tags: ['Batch'],
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      updated: [a.id, pub.id],
      errors: [
        { message_id: hidden.id, status: 404, code: 'message_not_found', detail: 'Message not found.' },
      ],
    });
    expect((await readOk(api, alice.token, a.id)).tags).toEqual(['batch']);
    expect((await readOk(api, carol.token, hidden.id)).tags).toEqual([]);
  });

  it('when tags are missing or malformed, then 400 or 422', async () => {
    const a = await post(api, alice.token, { content: 'a' });
    expectError(
      await patch(alice.token, '/v1/messages/tags/batch', { message_ids: [a.id] }),
      400,
      'missing_field',
    );
    expectError(
      await patch(alice.token, '/v1/messages/tags/batch', { message_ids: [a.id], tags: ['no way'] }),
      422,
      'validation_error',
    );
    expectError(
      await patch(reader.token, '/v1/messages/tags/batch', { message_ids: [a.id], tags: ['x'] }),
      403,
      'insufficient_scope',
    );
    expectError(
      await patch(undefined, '/v1/messages/tags/batch', { message_ids: [a.id], tags: ['x'] }),
      401,
      'not_authenticated',
    );
  });
});

describe('GET /v1/messages/tags', () => {
  it('when tags exist on visible and invisible messages, then only the visible ones are listed, sorted and distinct', async () => {
    const p = uniqueTag('t');
    await post(api, alice.token, { content: 'own', tags: [`${p}-b`, `${p}-a`] });
    await post(api, bob.token, { content: 'cc', recipients: [alice.tag], tags: [`${p}-c`, `${p}-a`] });
    await post(api, carol.token, { content: 'public', public: true, tags: [`${p}-d`] });
    await post(api, carol.token, { content: 'private', tags: [`${p}-secret`] });
    const res = await api.request<string[]>('GET', '/v1/messages/tags', { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body.filter((tag) => tag.startsWith(p))).toEqual([`${p}-a`, `${p}-b`, `${p}-c`, `${p}-d`]);
    expect([...res.body].sort()).toEqual(res.body);
    expect(new Set(res.body).size).toBe(res.body.length);

    const carols = await api.request<string[]>('GET', '/v1/messages/tags', { token: carol.token });
    expect(carols.body.filter((tag) => tag.startsWith(p))).toEqual([`${p}-d`, `${p}-secret`]);
  });

  it('when the caller is read-only, then 200; without credentials, then 401', async () => {
    expect((await api.request('GET', '/v1/messages/tags', { token: reader.token })).status).toBe(200);
    expectError(await api.request('GET', '/v1/messages/tags'), 401, 'not_authenticated');
  });
});
