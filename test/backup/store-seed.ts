// A small store with something of everything a backup must carry, made through the public API: users
// who sign in with passwords, an API key, a thread with replies, a channel, a reaction, a file, a
// message read and others not, and a cursor taken before the last messages were posted. `reads` are
// the answers that must be the same after a restore (or an upgrade), as each user.
import {
  WRITER_SCOPES,
  createKey,
  grant,
  postMessage,
  registerUser,
  type TestUser,
} from '../support/factories.js';
import type { TestServer } from '../support/test-server.js';
import { download, uploadOk } from '../files/file-helpers.js';

export interface SeededStore {
  alice: TestUser;
  bob: TestUser;
  /** alice's API key. */
  key: string;
  fileId: string;
  fileBytes: string;
  /** bob's cursor from before the last two messages to him. */
  cursor: string;
  /** The ids of the messages posted to bob after `cursor`, in order. */
  afterCursor: string[];
  /** The reads compared before and after, as [who, path]. */
  reads: [who: 'alice' | 'bob', path: string][];
}

async function ok<T>(
  api: TestServer,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<T> {
  const res = await api.request<T>(method, path, { token, body });
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function signIn(api: TestServer, user: TestUser): Promise<TestUser> {
  const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  if (login.status !== 200) throw new Error(`login of ${user.tag}: ${login.status}`);
  return { ...user, token: login.body.access_token };
}

export async function seedStore(api: TestServer, word: string): Promise<SeededStore> {
  const alice0 = await registerUser(api);
  const bob0 = await registerUser(api);
  await grant(api, alice0.uid, { scopes: [...WRITER_SCOPES, 'channels.create'], has_api_access: true });
  await grant(api, bob0.uid, { scopes: WRITER_SCOPES });
  const alice = await signIn(api, alice0);
  const bob = await signIn(api, bob0);
  const { key } = await createKey(api, alice.token, { label: 'backup test' });

  const root = await postMessage(api, alice.token, {
    content: `the plan ${word}`,
    recipients: [bob.tag],
    subject: 'plan',
  });
  const reply = await postMessage(api, bob.token, {
    content: 'sounds good',
    parent_id: root.id,
    audience: 'parent',
  });
  await postMessage(api, alice.token, {
    content: `and then ${word}`,
    parent_id: reply.id,
    audience: 'parent',
  });
  const channel = await ok<{ id: string }>(api, 'POST', '/v1/channels', alice.token, {
    display_name: `team ${word}`,
  });
  await ok(api, 'POST', `/v1/channels/${channel.id}/members`, alice.token, { user_tag: bob.tag });
  const inChannel = await postMessage(api, alice.token, {
    content: `channel news ${word}`,
    channel_ids: [channel.id],
  });
  await ok(api, 'PUT', `/v1/messages/${root.id}/reactions/${encodeURIComponent('👍')}`, bob.token);
  const fileBytes = `attached bytes ${word}\n`;
  const file = await uploadOk(api, alice.token, fileBytes, { filename: 'notes.txt' });
  const withFile = await postMessage(api, alice.token, {
    content: 'the notes',
    recipients: [bob.tag],
    files: [{ file_id: file.file_id }],
  });
  await ok(api, 'POST', `/v1/messages/${root.id}/read`, bob.token, { read: true });

  const page = await ok<{ cursor: string }>(api, 'GET', '/v1/notifications?limit=100', bob.token);
  const later1 = await postMessage(api, alice.token, {
    content: `after the cursor 1 ${word}`,
    recipients: [bob.tag],
  });
  const later2 = await postMessage(api, alice.token, {
    content: `after the cursor 2 ${word}`,
    recipients: [bob.tag],
  });

  const reads: SeededStore['reads'] = [];
  for (const who of ['alice', 'bob'] as const) {
    reads.push(
      [who, `/v1/messages/${root.id}`],
      [who, `/v1/messages/${root.id}/thread`],
      [who, '/v1/messages/inbox'],
      [who, '/v1/messages/history'],
      [who, '/v1/messages/timeline'],
      [who, `/v1/messages/search?q=${word}`],
      [who, `/v1/messages/${root.id}/reactions`],
      [who, `/v1/messages/${withFile.id}`],
      [who, '/v1/messages/unread'],
      [who, '/v1/channels'],
      [who, `/v1/channels/${channel.id}/messages`],
      [who, `/v1/messages/${inChannel.id}`],
    );
  }
  reads.push(['bob', `/v1/notifications?since=${encodeURIComponent(page.cursor)}&limit=100`]);
  return {
    alice,
    bob,
    key,
    fileId: file.file_id,
    fileBytes,
    cursor: page.cursor,
    afterCursor: [later1.id, later2.id],
    reads,
  };
}

/** The answers of the seeded reads, keyed by who and path; every one must succeed. */
export async function readAll(api: TestServer, store: SeededStore): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const [who, path] of store.reads) {
    const res = await api.request('GET', path, { token: store[who].token });
    if (res.status !== 200)
      throw new Error(`GET ${path} as ${who}: ${res.status} ${JSON.stringify(res.body)}`);
    answers[`${who} ${path}`] = res.body;
  }
  const file = await download(api, store.bob.token, store.fileId);
  answers['bob file bytes'] = file.bytes.toString('utf8');
  return answers;
}
