// subscription { notifications(since) } over graphql-ws on /graphql: the same notifications as
// /v1/ws/v1 and GET /v1/notifications, with the same opaque cursors, the same credentials and
// refusals, the same document limits as over HTTP.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket, socketUrl } from '../support/ws-client.js';

let api: TestServer;
const clients: Client[] = [];
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  closeAllSockets();
  await api.close();
});

const NOTIFICATIONS = /* GraphQL */ `
  subscription Follow($since: String) {
    notifications(since: $since) {
      id
      cursor
      created_at
      event {
        type
        recipient_uid
        content {
          messages {
            id
            content
            parent_id
            author {
              uid
              user_tag
            }
          }
          context {
            id
            content
            parent_id
            author {
              uid
              user_tag
            }
          }
        }
      }
    }
  }
`;

interface NotificationData {
  notifications: { id: string; cursor: string; created_at: string; event: Record<string, unknown> };
}

function client(
  connectionParams: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Client {
  // The upgrade request's own headers, for the Authorization-header case.
  class HeaderSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const made = createClient({
    url: socketUrl(api, '/graphql'),
    webSocketImpl: HeaderSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(made);
  return made;
}

function follow(made: Client, since?: string, query = NOTIFICATIONS) {
  return made.iterate<NotificationData>({ query, variables: since === undefined ? {} : { since } });
}

async function nextValue<T>(iterator: AsyncIterableIterator<T>): Promise<T> {
  const result = await iterator.next();
  if (result.done) throw new Error('the subscription ended');
  return result.value;
}

/** What a graphql-ws iterator rejects with: a CloseEvent or a list of GraphQL errors. */
async function failureOf(iterator: AsyncIterableIterator<unknown>): Promise<unknown> {
  try {
    const result = await iterator.next();
    return result.done ? 'done' : result.value;
  } catch (error) {
    return error;
  }
}

async function send(author: TestUser, recipient: TestUser, content: string): Promise<string> {
  return (await postMessage(api, author.token, { content, recipients: [recipient.tag] })).id;
}

interface NotificationPage {
  notifications: { id: string; cursor: string; event: { content: { messages: { id: string }[] } } }[];
  cursor: string;
}

/** GET /v1/notifications for the user: its `cursor` is where the user's events stand now. */
async function readPage(user: TestUser, since?: string): Promise<NotificationPage> {
  const query = since === undefined ? '' : `?since=${encodeURIComponent(since)}`;
  const res = await api.request<NotificationPage>('GET', `/v1/notifications${query}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

describe('subscription notifications', () => {
  it('when a message is posted to the user, then the subscription gets the same notification as /v1/ws/v1', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const socket = await openSocket(api, { token: reader.token });
    const ready = await socket.next();
    // since = the ready cursor: nothing posted after this point can be missed, however late the
    // subscription is set up.
    const iterator = follow(client({ authorization: `Bearer ${reader.token}` }), ready.cursor as string);
    const id = await send(author, reader, 'to both transports');

    const frame = await socket.next();
    const { data } = await nextValue(iterator);
    expect(frame).toMatchObject({ type: 'notification', cursor: expect.any(String) });
    expect(data?.notifications).toEqual({
      id: expect.any(String),
      cursor: frame.cursor,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      event: frame.event,
    });
    expect(data?.notifications.event).toMatchObject({ type: 'sent', content: { messages: [{ id }] } });
    await iterator.return?.();
  });

  it('when since is given, then the missed notifications come first, in order, then live ones, with the cursors of GET /v1/notifications', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const start = (await readPage(reader)).cursor;
    const missed = [await send(author, reader, 'one'), await send(author, reader, 'two')];
    const iterator = follow(client({ access_token: reader.token }), start);
    const got: NotificationData['notifications'][] = [];
    for (const id of missed) {
      const { data } = await nextValue(iterator);
      expect(data?.notifications.event).toMatchObject({ content: { messages: [{ id }] } });
      got.push(data!.notifications);
    }
    const live = await send(author, reader, 'three');
    const { data } = await nextValue(iterator);
    expect(data?.notifications.event).toMatchObject({ content: { messages: [{ id: live }] } });
    got.push(data!.notifications);
    await iterator.return?.();

    const polled = (await readPage(reader, start)).notifications;
    expect(polled.map((n) => [n.id, n.cursor])).toEqual(got.map((n) => [n.id, n.cursor]));
    expect(new Set(got.map((n) => n.cursor)).size).toBe(3);

    // Resuming after the first one: exactly the two that followed it.
    const resumed = follow(client({ access_token: reader.token }), got[0]!.cursor);
    for (const expected of got.slice(1))
      expect((await nextValue(resumed)).data?.notifications).toEqual(expected);
    await resumed.return?.();
  });

  it('when the token is in the upgrade request’s Authorization header, then it is accepted', async () => {
    const author = await registerWriter(api);
    const reader = await registerWriter(api);
    const start = (await readPage(reader)).cursor;
    const id = await send(author, reader, 'header');
    const iterator = follow(client({}, { authorization: `Bearer ${reader.token}` }), start);
    const { data } = await nextValue(iterator);
    expect(data?.notifications.event).toMatchObject({
      recipient_uid: reader.uid,
      content: { messages: [{ id }] },
    });
    await iterator.return?.();
  });

  it('when no credentials are sent, then the socket closes with 4401', async () => {
    expect(await failureOf(follow(client()))).toMatchObject({ code: 4401, reason: 'not_authenticated' });
  });

  it('when the token is invalid, then the socket closes with 4401 invalid_session', async () => {
    const failure = await failureOf(follow(client({ access_token: 'svc_session_x.y' })));
    expect(failure).toMatchObject({ code: 4401, reason: 'invalid_session' });
  });

  it('when the user lacks realtime.connect, then the socket closes with 4403', async () => {
    const reader = await registerUser(api);
    const failure = await failureOf(follow(client({ authorization: `Bearer ${reader.token}` })));
    expect(failure).toMatchObject({ code: 4403, reason: 'insufficient_scope' });
  });

  it.each(['-1', '0', 'not-a-cursor'])(
    'when since is %j (not a cursor), then a validation_error',
    async (since) => {
      const reader = await registerWriter(api);
      const result = await nextValue(follow(client({ access_token: reader.token }), since));
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    },
  );

  it('when a query is sent over the socket, then it is refused: queries go to POST /graphql', async () => {
    const reader = await registerWriter(api);
    const failure = await failureOf(follow(client({ access_token: reader.token }), undefined, '{ health }'));
    expect(failure).toEqual([expect.objectContaining({ extensions: { code: 'bad_request', status: 400 } })]);
  });

  it('when the document breaks the HTTP limits (too many aliases), then it is refused the same way', async () => {
    const reader = await registerWriter(api);
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: id`).join(' ');
    const query = `subscription { notifications { ${aliases} } }`;
    const failure = await failureOf(follow(client({ access_token: reader.token }), undefined, query));
    expect(Array.isArray(failure)).toBe(true);
    expect(JSON.stringify(failure)).toMatch(/aliases/i);
  });
});
