// Shared helpers of the read-view tests: typed view calls, channel set-up and a thread with a hidden
// middle message, through the public API.
import { expect } from '@jest/globals';
import {
  STRONG_PASSWORD,
  WRITER_SCOPES,
  grant,
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import type { TestServer } from '../support/test-server.js';

export interface ViewMessage {
  id: string;
  content: string;
  root_id: string | null;
  parent_id: string | null;
  public: boolean;
  timestamp: string;
  reply_ids: string[];
  depth?: number;
  replies?: { count: number; ids: string[] };
}

export interface Page {
  messages: ViewMessage[];
  skip: number;
  limit: number;
  has_more: boolean;
}

/** GET a view and expect 200; answers the page. */
export async function view(api: TestServer, path: string, token?: string): Promise<Page> {
  const res = await api.request<Page>('GET', path, { token });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const idsOf = (page: { messages: { id: string }[] }): string[] => page.messages.map((m) => m.id);

/** A user holding the writer scopes and channels.create, with a session minted after the grant. */
export async function registerChannelOwner(api: TestServer): Promise<TestUser> {
  const user = await registerUser(api);
  await grant(api, user.uid, { scopes: [...WRITER_SCOPES, 'channels.create'] });
  const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: STRONG_PASSWORD },
  });
  expect(login.status).toBe(200);
  return { ...user, token: login.body.access_token };
}

/** Creates a channel owned by `owner` with `members` added; answers its id. */
export async function createChannel(api: TestServer, owner: TestUser, members: TestUser[]): Promise<string> {
  const created = await api.request<{ id: string }>('POST', '/v1/channels', {
    token: owner.token,
    body: { display_name: 'views test channel' },
  });
  expect(created.status).toBe(201);
  for (const member of members) {
    const added = await api.request('POST', `/v1/channels/${created.body.id}/members`, {
      token: owner.token,
      body: { uid: member.uid },
    });
    expect(added.status).toBe(200);
  }
  return created.body.id;
}

export function expectValidationError(res: { status: number; body: unknown }, field: string): void {
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ code: 'validation_error' });
  const locs = (res.body as { detail: { loc: unknown[] }[] }).detail.map((issue) => issue.loc.join('.'));
  expect(locs.some((loc) => loc.endsWith(field))).toBe(true);
}

/** Three writers and a chain whose middle message only bob may see. */
export interface HiddenMiddleThread {
  alice: TestUser;
  bob: TestUser;
  carol: TestUser;
  root: PostedMessage;
  hidden: PostedMessage;
  reply: PostedMessage;
}

/** root (alice → bob, carol) ── hidden (alice → bob only) ── reply (bob → carol, alice). */
export async function seedHiddenMiddleThread(api: TestServer, label: string): Promise<HiddenMiddleThread> {
  const [alice, bob, carol] = await Promise.all([
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
  ]);
  const root = await postMessage(api, alice.token, {
    content: `${label} root`,
    recipients: [bob.tag, carol.tag],
  });
  const hidden = await postMessage(api, alice.token, {
    content: `${label}, only for bob`,
    parent_id: root.id,
    recipients: [bob.tag],
  });
  const reply = await postMessage(api, bob.token, {
    content: `${label}, bob answers`,
    parent_id: hidden.id,
    recipients: [carol.tag, alice.tag],
  });
  return { alice, bob, carol, root, hidden, reply };
}
