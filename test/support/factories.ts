// Test data through the public API only. Every tag is unique, so tests never collide.
import { randomBytes } from 'node:crypto';
import { TEST_ADMIN, type TestServer } from './test-server.js';

export const STRONG_PASSWORD = 'plenty-long-passphrase-42';

export function uniqueTag(prefix = 'u'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

export interface TestUser {
  uid: string;
  tag: string;
  password: string;
  token: string;
}

function expectOk(res: { status: number; body: unknown }, what: string): void {
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

export async function registerUser(
  api: TestServer,
  fields: { tag?: string; email?: string; password?: string } = {},
): Promise<TestUser> {
  const tag = fields.tag ?? uniqueTag();
  const password = fields.password ?? STRONG_PASSWORD;
  const res = await api.request<{ access_token: string }>('POST', '/v1/auth/register', {
    body: { user_tag: tag, password, ...(fields.email ? { email: fields.email } : {}) },
  });
  expectOk(res, 'register');
  const me = await api.request<{ uid: string }>('GET', '/v1/users/me', { token: res.body.access_token });
  return { uid: me.body.uid, tag, password, token: res.body.access_token };
}

let adminToken: string | undefined;
export async function loginAdmin(api: TestServer): Promise<string> {
  if (adminToken) return adminToken;
  const res = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: TEST_ADMIN.tag, password: TEST_ADMIN.password },
  });
  expectOk(res, 'admin login');
  adminToken = res.body.access_token;
  return adminToken;
}

/** Sets a user's grant through the admin API. */
export async function grant(
  api: TestServer,
  uid: string,
  changes: { scopes?: string[]; has_api_access?: boolean },
): Promise<void> {
  const res = await api.request('PATCH', `/v1/admin/users/${uid}`, {
    token: await loginAdmin(api),
    body: changes,
  });
  expectOk(res, 'grant');
}

export const WRITER_SCOPES = ['messages.read', 'messages.write', 'realtime.connect'];

/** A registered user holding the verified scopes (and partner access when asked), with a fresh session. */
export async function registerWriter(
  api: TestServer,
  options: { apiAccess?: boolean } = {},
): Promise<TestUser> {
  const user = await registerUser(api);
  await grant(api, user.uid, { scopes: WRITER_SCOPES, has_api_access: options.apiAccess ?? false });
  const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  expectOk(login, 'login');
  return { ...user, token: login.body.access_token };
}

export async function createKey(
  api: TestServer,
  token: string,
  body: Record<string, unknown> = {},
): Promise<{ key_id: string; key: string }> {
  const res = await api.request<{ key_id: string; key: string }>('POST', '/v1/auth/keys/self', {
    token,
    body,
  });
  expectOk(res, 'create key');
  return res.body;
}

export async function createManaged(
  api: TestServer,
  managerToken: string,
  body: Record<string, unknown> = {},
): Promise<{ uid: string; user_tag: string }> {
  const res = await api.request<{ uid: string; user_tag: string }>('POST', '/v1/managed/users', {
    token: managerToken,
    body: { user_tag: uniqueTag('bot'), ...body },
  });
  expectOk(res, 'create managed user');
  return res.body;
}

export interface PostedMessage {
  id: string;
  root_id: string | null;
  parent_id: string | null;
  [field: string]: unknown;
}

/** Posts one message (MessageInput fields) and answers its MessageOutput; throws when the item failed. */
export async function postMessage(
  api: TestServer,
  token: string,
  input: Record<string, unknown>,
): Promise<PostedMessage> {
  const res = await api.request<{ ok: boolean; message?: PostedMessage; error?: unknown }[]>(
    'POST',
    '/v1/messages',
    {
      token,
      body: input,
    },
  );
  expectOk(res, 'post message');
  const [result] = res.body;
  if (!result?.ok || !result.message) throw new Error(`post message failed: ${JSON.stringify(res.body)}`);
  return result.message;
}
