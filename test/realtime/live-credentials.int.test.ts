// The credential behind a live connection (security review 2026-11-28, findings 1, 4 and 6): both
// socket transports, /v1/ws/v1 and graphql-ws on /graphql, need messages.read as well as
// realtime.connect, at connect (replay included) and for as long as they stay open; and every change
// that ends a credential or narrows it (logout, session or key revocation, password change, a bot's
// deactivation or deletion, a manager's removal, an administrator's change of scopes or API access)
// closes the connections opened with it at once: a message posted right after the change answered
// never reaches them, on the instance that answered and on another one sharing Redis. The heartbeat
// is left at its 30 s default, so nothing here is explained by it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import {
  createKey,
  createManaged,
  grant,
  postMessage,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { readsDuring } from '../support/statement-reads.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  closeAllSockets,
  closeOf,
  openSocket,
  socketUrl,
  type Frame,
  type TestSocket,
} from '../support/ws-client.js';

let redis: RedisServer;
/** Two instances sharing the test Neo4j and one Redis. */
let a: TestServer;
let b: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  a = await startTestServer({ REDIS_URL: redis.url });
  b = await startTestServer({ REDIS_URL: redis.url });
});
afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  closeAllSockets();
  await a?.close();
  await b?.close();
  await redis?.stop();
});

/** How a connection presents its credential: a bearer token or an API key. */
type Credential = { token: string } | { apiKey: string };

const WRITER_SCOPES_WITHOUT_READ = ['messages.write', 'realtime.connect'];

async function openNotifications(api: TestServer, credential: Credential, query = {}): Promise<TestSocket> {
  return 'token' in credential
    ? openSocket(api, { token: credential.token, query })
    : openSocket(api, { headers: { 'x-api-key': credential.apiKey }, query });
}

/** Opens /v1/ws/v1 and takes the ready frame; `cursor` is where a subscription opened later starts. */
async function listen(api: TestServer, credential: Credential): Promise<TestSocket & { cursor: string }> {
  const socket = await openNotifications(api, credential);
  const ready = await socket.next();
  expect(ready).toMatchObject({ type: 'ready', cursor: expect.any(String) });
  return Object.assign(socket, { cursor: String(ready.cursor) });
}

/**
 * The subscription over graphql-ws, from `since`: graphql-ws has no frame that says a subscription
 * has started, so it replays from the socket's ready cursor rather than race the first post.
 */
function subscribe(api: TestServer, credential: Credential, since: string) {
  return graphqlClient(api, credential).iterate<Notified>({ query: SUBSCRIPTION, variables: { since } });
}

const SUBSCRIPTION = /* GraphQL */ `
  subscription Follow($since: String) {
    notifications(since: $since) {
      cursor
      event {
        type
        content {
          messages {
            id
          }
        }
      }
    }
  }
`;

interface Notified {
  notifications: { event: { content: { messages: { id: string }[] | null } } };
}

function graphqlClient(api: TestServer, credential: Credential): Client {
  const headers: Record<string, string> = 'apiKey' in credential ? { 'x-api-key': credential.apiKey } : {};
  class HeaderSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const made = createClient({
    url: socketUrl(api, '/graphql'),
    webSocketImpl: HeaderSocket,
    connectionParams: 'token' in credential ? { authorization: `Bearer ${credential.token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(made);
  return made;
}

/** What the iterator's next step gives: a value, 'done', or what it rejected with (a CloseEvent). */
async function stepOf(iterator: AsyncIterableIterator<unknown>): Promise<unknown> {
  try {
    const result = await iterator.next();
    return result.done ? 'done' : result.value;
  } catch (error) {
    return error;
  }
}

const idsOf = (frame: Frame) =>
  ((frame.event as { content: { messages?: { id: string }[] } }).content.messages ?? []).map((m) => m.id);

/** Waits for the notification showing `id` (frames before it, such as `sent` for other messages, skipped). */
async function frameShowing(socket: TestSocket, id: string): Promise<Frame> {
  for (;;) {
    const frame = await socket.next();
    if (frame.type === 'notification' && idsOf(frame).includes(id)) return frame;
  }
}

async function valueShowing(
  iterator: AsyncIterableIterator<{ data?: Notified | null }>,
  id: string,
): Promise<void> {
  for (;;) {
    const step = await iterator.next();
    if (step.done) throw new Error('the subscription ended');
    if (step.value.data?.notifications.event.content.messages?.some((m) => m.id === id)) return;
  }
}

describe('connecting without messages.read', () => {
  let reader: TestUser;
  let narrowKey: string;
  beforeAll(async () => {
    reader = await registerWriter(a, { apiAccess: true });
    narrowKey = (await createKey(a, reader.token, { scopes_cap: 'realtime.connect' })).key;
  });

  it('when /v1/ws/v1 is opened with a key capped to realtime.connect, then an error frame and close 4403 insufficient_scope', async () => {
    const socket = await openNotifications(a, { apiKey: narrowKey });
    expect(await socket.next()).toEqual({
      type: 'error',
      code: 'insufficient_scope',
      detail: expect.any(String),
    });
    expect(await closeOf(socket)).toEqual({ code: 4403, reason: 'insufficient_scope' });
  });

  it('when the same key asks for a replay with since, then the same refusal and no event of the log', async () => {
    const first = await openNotifications(a, { token: reader.token });
    const cursor = String((await first.next()).cursor);
    const author = await registerWriter(a);
    const posted = await postMessage(a, author.token, { content: 'in the log', recipients: [reader.tag] });
    await frameShowing(first, posted.id);
    const socket = await openNotifications(a, { apiKey: narrowKey }, { since: cursor });
    expect(await socket.next()).toEqual({
      type: 'error',
      code: 'insufficient_scope',
      detail: expect.any(String),
    });
    expect(await closeOf(socket)).toEqual({ code: 4403, reason: 'insufficient_scope' });
    expect(socket.unread).toEqual([]);
  });

  it('when an account an administrator cut to realtime.connect and messages.write connects, then 4403 on both transports', async () => {
    const user = await registerWriter(a);
    await grant(a, user.uid, { scopes: WRITER_SCOPES_WITHOUT_READ });
    const socket = await openNotifications(a, { token: user.token });
    expect(await socket.next()).toMatchObject({ type: 'error', code: 'insufficient_scope' });
    expect(await closeOf(socket)).toEqual({ code: 4403, reason: 'insufficient_scope' });
    const failure = await stepOf(graphqlClient(a, { token: user.token }).iterate({ query: SUBSCRIPTION }));
    expect(failure).toMatchObject({ code: 4403, reason: 'insufficient_scope' });
  });

  it('when the graphql-ws subscription is opened with the narrow key, then the socket closes with 4403, as GET /v1/notifications answers 403', async () => {
    const failure = await stepOf(graphqlClient(a, { apiKey: narrowKey }).iterate({ query: SUBSCRIPTION }));
    expect(failure).toMatchObject({ code: 4403, reason: 'insufficient_scope' });
    const polled = await a.request('GET', '/v1/notifications', { headers: { 'x-api-key': narrowKey } });
    expect(polled.status).toBe(403);
    expect(polled.body).toMatchObject({ code: 'insufficient_scope' });
  });
});

/**
 * One change to a credential: who holds it, how it is presented, and what the change answers. The
 * witness is another user addressed by the same message, whose socket shows the message was sent.
 */
interface Case {
  name: string;
  /** Makes the accounts; answers the credential to watch and the change to make. */
  arrange(api: TestServer): Promise<{
    /** The tag the message is addressed to. */
    recipient: string;
    credential: Credential;
    change: () => Promise<unknown>;
    closed: { code: number; reason: string };
  }>;
}

function expectOk(res: { status: number; body: unknown }, what: string): void {
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
}

async function loginAgain(api: TestServer, user: TestUser): Promise<string> {
  const res = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  expectOk(res, 'login');
  return res.body.access_token;
}

/** A bot with realtime.connect managed by `manager`, and a delegated session of it. */
async function botSession(
  api: TestServer,
  manager: TestUser,
): Promise<{ uid: string; tag: string; token: string }> {
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const res = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expectOk(res, 'delegate');
  return { uid: bot.uid, tag: bot.user_tag, token: res.body.access_token };
}

/** A change a bot's manager makes to the bot, watched on the bot's delegated session. */
function botCase(name: string, method: string, path: (uid: string) => string): Case {
  return {
    name,
    arrange: async (api) => {
      const manager = await registerWriter(api);
      const bot = await botSession(api, manager);
      return {
        recipient: bot.tag,
        credential: { token: bot.token },
        change: async () =>
          expectOk(await api.request(method, path(bot.uid), { token: manager.token }), name),
        closed: { code: 4401, reason: 'invalid_session' },
      };
    },
  };
}

const CASES: Case[] = [
  {
    name: 'logout',
    arrange: async (api) => {
      const user = await registerWriter(api);
      return {
        recipient: user.tag,
        credential: { token: user.token },
        change: async () =>
          expectOk(await api.request('POST', '/v1/auth/logout', { token: user.token }), 'logout'),
        closed: { code: 4401, reason: 'invalid_session' },
      };
    },
  },
  {
    name: 'ending one session from another',
    arrange: async (api) => {
      const user = await registerWriter(api);
      const other = await loginAgain(api, user);
      const session = await api.request<{ session_id: string }>('GET', '/v1/auth/session', { token: other });
      return {
        recipient: user.tag,
        credential: { token: other },
        change: async () =>
          expectOk(
            await api.request('DELETE', `/v1/auth/sessions/${session.body.session_id}`, {
              token: user.token,
            }),
            'revoke session',
          ),
        closed: { code: 4401, reason: 'invalid_session' },
      };
    },
  },
  {
    name: 'revoking the key',
    arrange: async (api) => {
      const user = await registerWriter(api, { apiAccess: true });
      const { key, key_id } = await createKey(api, user.token);
      return {
        recipient: user.tag,
        credential: { apiKey: key },
        change: async () =>
          expectOk(
            await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token }),
            'revoke key',
          ),
        closed: { code: 4401, reason: 'invalid_api_key' },
      };
    },
  },
  {
    name: 'a password change',
    arrange: async (api) => {
      const user = await registerWriter(api);
      const other = await loginAgain(api, user);
      return {
        recipient: user.tag,
        credential: { token: other },
        change: async () =>
          expectOk(
            await api.request('POST', '/v1/auth/password/change', {
              token: user.token,
              body: { current_password: user.password, new_password: 'another-long-passphrase-77' },
            }),
            'change password',
          ),
        closed: { code: 4401, reason: 'invalid_session' },
      };
    },
  },
  botCase('the bot’s deactivation', 'POST', (uid) => `/v1/managed/users/${uid}/deactivate`),
  botCase('the bot’s deletion', 'DELETE', (uid) => `/v1/managed/users/${uid}`),
  {
    name: 'the removal of the manager whose delegated session it is',
    arrange: async (api) => {
      const [creator, coManager] = [await registerWriter(api), await registerWriter(api)];
      const bot = await createManaged(api, creator.token, { is_bot: true });
      expectOk(
        await api.request('POST', `/v1/managed/users/${bot.uid}/managers`, {
          token: creator.token,
          body: { uid: coManager.uid },
        }),
        'invite',
      );
      expectOk(
        await api.request('POST', `/v1/managed/invitations/${bot.uid}/accept`, { token: coManager.token }),
        'accept',
      );
      const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
        token: coManager.token,
        body: { managed_uid: bot.uid },
      });
      expectOk(delegated, 'delegate');
      return {
        recipient: bot.user_tag,
        credential: { token: delegated.body.access_token },
        change: async () =>
          expectOk(
            await api.request('DELETE', `/v1/managed/users/${bot.uid}/managers/${coManager.uid}`, {
              token: creator.token,
            }),
            'remove manager',
          ),
        closed: { code: 4401, reason: 'invalid_session' },
      };
    },
  },
  {
    name: 'an administrator taking messages.read away',
    arrange: async (api) => {
      const user = await registerWriter(api);
      return {
        recipient: user.tag,
        credential: { token: user.token },
        change: () => grant(api, user.uid, { scopes: WRITER_SCOPES_WITHOUT_READ }),
        closed: { code: 4403, reason: 'insufficient_scope' },
      };
    },
  },
  {
    // The bot's own account is not written: its grant follows its manager's (principal.cypher), so
    // the change of the manager must reach the bot's connections (credential-writes.ts).
    name: 'an administrator taking messages.read from the bot’s manager',
    arrange: async (api) => {
      const manager = await registerWriter(api);
      const bot = await botSession(api, manager);
      return {
        recipient: bot.tag,
        credential: { token: bot.token },
        change: () => grant(api, manager.uid, { scopes: WRITER_SCOPES_WITHOUT_READ }),
        closed: { code: 4403, reason: 'insufficient_scope' },
      };
    },
  },
  {
    name: 'an administrator taking API access away',
    arrange: async (api) => {
      const user = await registerWriter(api, { apiAccess: true });
      const { key } = await createKey(api, user.token);
      return {
        recipient: user.tag,
        credential: { apiKey: key },
        change: () => grant(api, user.uid, { has_api_access: false }),
        closed: { code: 4403, reason: 'api_access_required' },
      };
    },
  },
];

/**
 * Opens both transports with the credential on `listenOn`, proves they deliver, makes the change on
 * `changeOn`, posts at once to the recipient and the witness, and checks that the witness hears the
 * message while neither of the credential's connections does: each ends with the refusal instead.
 */
async function checkCase(testCase: Case, listenOn: TestServer, changeOn: TestServer): Promise<void> {
  const author = await registerWriter(changeOn);
  const witness = await registerWriter(changeOn);
  const { recipient, credential, change, closed } = await testCase.arrange(changeOn);
  const socket = await listen(listenOn, credential);
  const witnessSocket = await listen(listenOn, { token: witness.token });
  const subscription = subscribe(listenOn, credential, socket.cursor);

  const recipients = [recipient, witness.tag];
  const before = await postMessage(changeOn, author.token, { content: 'before', recipients });
  await frameShowing(socket, before.id);
  await valueShowing(subscription, before.id);
  await frameShowing(witnessSocket, before.id);

  await change();
  const after = await postMessage(changeOn, author.token, { content: 'after the change', recipients });
  await frameShowing(witnessSocket, after.id);

  const ending = await socket.next();
  expect(ending).toEqual({ type: 'error', code: closed.reason, detail: expect.any(String) });
  expect(await closeOf(socket)).toEqual(closed);
  expect(socket.unread).toEqual([]);
  expect(await stepOf(subscription)).toMatchObject(closed);
}

describe('a change to the credential of an open connection, on the instance that answered it', () => {
  for (const testCase of CASES) {
    it(`when ${testCase.name} answers, then a message posted right after reaches neither transport and both close`, () =>
      checkCase(testCase, a, a));
  }
});

describe('a change answered on another instance sharing Redis', () => {
  for (const testCase of CASES) {
    it(`when ${testCase.name} answers on instance A, then sockets on instance B close and get nothing after it`, () =>
      checkCase(testCase, b, a));
  }
});

describe('connections the change does not concern', () => {
  it('when another user’s session ends, then an open connection keeps receiving (judged again, not closed)', async () => {
    const author = await registerWriter(a);
    const listener = await registerWriter(a);
    const other = await registerWriter(a);
    const socket = await listen(a, { token: listener.token });
    const subscription = subscribe(a, { token: listener.token }, socket.cursor);
    const first = await postMessage(a, author.token, { content: 'one', recipients: [listener.tag] });
    await frameShowing(socket, first.id);
    await valueShowing(subscription, first.id);

    expectOk(await a.request('POST', '/v1/auth/logout', { token: other.token }), 'logout');
    const second = await postMessage(a, author.token, { content: 'two', recipients: [listener.tag] });
    await frameShowing(socket, second.id);
    await valueShowing(subscription, second.id);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
  });
});

/** The session of a token, by id. */
async function sessionIdOf(api: TestServer, token: string): Promise<string> {
  const res = await api.request<{ session_id: string }>('GET', '/v1/auth/session', { token });
  expectOk(res, 'session');
  return res.body.session_id;
}

/**
 * How many times `api` read one of these sessions from Neo4j while `work` ran (the heartbeat is
 * 30 s: none of its own, and the sessions' holders make no request meanwhile).
 */
function readsOfSessions(
  api: TestServer,
  sessionIds: readonly string[],
  work: () => Promise<unknown>,
): Promise<number> {
  return readsDuring(
    api.ctx.db,
    (name, params) =>
      name === 'identity/find-sessions'
        ? ((params.session_ids ?? []) as string[]).filter((id) => sessionIds.includes(id)).length
        : 0,
    work,
  );
}

describe('writes that change no credential, or another account’s (security review 2026-12-02, finding 1)', () => {
  it('when other accounts edit their profiles on both instances, then no open connection’s credential is read again', async () => {
    const author = await registerWriter(a);
    const listeners = [await registerWriter(a), await registerWriter(b)];
    const sockets = [
      await listen(a, { token: listeners[0]!.token }),
      await listen(b, { token: listeners[1]!.token }),
    ];
    const listened = [await sessionIdOf(a, listeners[0]!.token), await sessionIdOf(b, listeners[1]!.token)];
    const editors = [await registerWriter(a), await registerWriter(b)];
    const recipients = listeners.map((l) => l.tag);
    const first = await postMessage(a, author.token, { content: 'one', recipients });
    for (const socket of sockets) await frameShowing(socket, first.id);

    const edits = async () => {
      for (let i = 0; i < 5; i++) {
        for (const [n, editor] of editors.entries()) {
          expectOk(
            await (n === 0 ? a : b).request('POST', '/v1/users/profile', {
              token: editor.token,
              body: { display_name: `editor ${i}`, bio: `bio ${i}`, is_bot: false },
            }),
            'profile edit',
          );
        }
      }
      // What the edits published through Redis has been heard once a post sent after them arrives
      // (a socket re-judged would have held the frame for its read).
      const second = await postMessage(a, author.token, { content: 'two', recipients });
      for (const socket of sockets) await frameShowing(socket, second.id);
    };
    let readsOnB = 0;
    const readsOnA = await readsOfSessions(a, listened, async () => {
      readsOnB = await readsOfSessions(b, listened, edits);
    });
    expect({ readsOnA, readsOnB }).toEqual({ readsOnA: 0, readsOnB: 0 });
    for (const socket of sockets) expect(socket.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('when an administrator changes another account’s scopes, then only that account’s connections are judged again', async () => {
    const author = await registerWriter(a);
    const bystander = await registerWriter(a);
    const target = await registerWriter(a);
    const socket = await listen(a, { token: bystander.token });
    const bystanderSession = await sessionIdOf(a, bystander.token);
    const first = await postMessage(a, author.token, { content: 'one', recipients: [bystander.tag] });
    await frameShowing(socket, first.id);
    const reads = await readsOfSessions(a, [bystanderSession], async () => {
      await grant(a, target.uid, { scopes: WRITER_SCOPES_WITHOUT_READ });
      const second = await postMessage(a, author.token, { content: 'two', recipients: [bystander.tag] });
      await frameShowing(socket, second.id);
    });
    expect(reads).toBe(0);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
  });
});
