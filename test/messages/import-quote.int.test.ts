// POST /v1/messages/import/quote and GraphQL importMessages.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Imported {
  id: string;
  parent_id: string | null;
  author: { uid: string };
  import_info: Record<string, unknown> | null;
}
type Result =
  | { index: number; ok: true; message: Imported }
  | { index: number; ok: false; error: { status: number; code: string } };

let api: TestServer;
let alice: TestUser;
let reader: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  [alice, reader] = await Promise.all([registerWriter(api), registerUser(api)]);
});
afterAll(async () => {
  await api.close();
});

const importInfo = {
  source: 'slack',
  author_name: 'Grace Hopper',
  author_id: 'U123',
  url: 'https://example.slack.com/archives/C1/p1',
  original_timestamp: '2024-03-10T08:30:00+01:00',
};

const importQuote = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  api.request<Result[]>('POST', '/v1/messages/import/quote', { token, body, headers });

function messageOf(result: Result | undefined): Imported {
  if (!result?.ok) throw new Error(`expected success, got ${JSON.stringify(result)}`);
  return result.message;
}

describe('POST /v1/messages/import/quote', () => {
  it('when an item carries import_info, then the message shows it on every read, with the time normalised', async () => {
    const res = await importQuote(alice.token, {
      content: 'A ship in port is safe.',
      import_info: importInfo,
    });
    expect(res.status).toBe(200);
    const m = messageOf(res.body[0]);
    expect(m.author.uid).toBe(alice.uid);
    const expected = { ...importInfo, original_timestamp: '2024-03-10T07:30:00.000Z' };
    expect(m.import_info).toEqual(expected);
    const read = await api.request<Imported>('GET', `/v1/messages/${m.id}`, { token: alice.token });
    expect(read.body.import_info).toEqual(expected);
  });

  it('when several quotes are imported, then they chain like a post and items fail on their own', async () => {
    const res = await importQuote(alice.token, [
      { content: 'first', import_info: { source: 'mail', author_name: 'A' } },
      { content: 'no attribution' },
      { content: 'second', import_info: { source: 'mail', author_name: 'B', url: 'ftp://nope' } },
      { content: 'third', import_info: { source: 'mail', author_name: 'C' } },
    ]);
    expect(res.body.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(res.body[1]).toMatchObject({ ok: false, error: { status: 422, code: 'validation_error' } });
    expect(res.body[2]).toMatchObject({ ok: false, error: { status: 422, code: 'validation_error' } });
    expect(messageOf(res.body[3]).parent_id).toBe(messageOf(res.body[0]).id);
  });

  it('when the same Idempotency-Key is reused, then the first answer returns; a post with that key is separate', async () => {
    const key = `import-${Date.now()}`;
    const first = await importQuote(
      alice.token,
      { content: 'quoted once', import_info: importInfo },
      { 'Idempotency-Key': key },
    );
    const again = await importQuote(
      alice.token,
      { content: 'quoted once', import_info: importInfo },
      { 'Idempotency-Key': key },
    );
    expect(again.body).toEqual(first.body);
    const post = await api.request<Result[]>('POST', '/v1/messages', {
      token: alice.token,
      body: { content: 'plain' },
      headers: { 'Idempotency-Key': key },
    });
    expect(messageOf(post.body[0]).id).not.toBe(messageOf(first.body[0]).id);
    expect(messageOf(post.body[0]).import_info).toBeNull();
  });

  it('when the body is none of the three forms, then 400; without messages.write 403; unauthenticated 401', async () => {
    expect((await importQuote(alice.token, { text: 'x' })).status).toBe(400);
    expect((await importQuote(reader.token, { content: 'x', import_info: importInfo })).status).toBe(403);
    expect((await api.request('POST', '/v1/messages/import/quote', { body: { content: 'x' } })).status).toBe(
      401,
    );
  });
});

describe('GraphQL importMessages', () => {
  it('when importing through GraphQL, then import_info comes back', async () => {
    const res = await api.graphql<{
      importMessages: { ok: boolean; message: { import_info: Record<string, unknown> } }[];
    }>(
      'mutation ($m: [ImportedMessageInput!]!) { importMessages(messages: $m) { ok message { import_info } } }',
      { m: [{ content: 'via graphql', import_info: { source: 'irc', author_name: 'ada' } }] },
      { token: alice.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.importMessages[0]).toEqual({
      ok: true,
      message: { import_info: { source: 'irc', author_name: 'ada' } },
    });
  });
});
