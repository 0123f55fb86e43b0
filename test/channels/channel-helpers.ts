// Channel test data through the public API: creators (holding channels.create), channels, members.
import { expect } from '@jest/globals';
import { WRITER_SCOPES, grant, registerUser, type TestUser } from '../support/factories.js';
import type { ApiResponse, TestServer } from '../support/test-server.js';

export interface Channel {
  id: string;
  display_name: string;
  description: string | null;
  created_at: string;
  created_by: string;
  is_admin: boolean;
  member_count: number;
}

export interface Member {
  uid: string;
  user_tag: string;
  is_admin: boolean;
  joined_at: string;
}

export interface ErrorBody {
  detail: unknown;
  code: string;
}

export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A registered user holding exactly `scopes`, with a session minted after the grant. */
export async function registerWithScopes(api: TestServer, scopes: string[]): Promise<TestUser> {
  const user = await registerUser(api);
  await grant(api, user.uid, { scopes });
  const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  expect(login.status).toBe(200);
  return { ...user, token: login.body.access_token };
}

/** A writer who may also create channels. */
export function registerCreator(api: TestServer): Promise<TestUser> {
  return registerWithScopes(api, [...WRITER_SCOPES, 'channels.create']);
}

export async function createChannel(
  api: TestServer,
  token: string,
  body: Record<string, unknown> = {},
): Promise<Channel> {
  const res = await api.request<Channel>('POST', '/v1/channels', {
    token,
    body: { display_name: 'General', ...body },
  });
  expect(res.status).toBe(201);
  return res.body;
}

export async function addMember(
  api: TestServer,
  token: string,
  channelId: string,
  body: Record<string, unknown>,
): Promise<Member> {
  const res = await api.request<Member>('POST', `/v1/channels/${channelId}/members`, { token, body });
  expect(res.status).toBe(200);
  return res.body;
}

/** A channel whose admin is `admin` and whose other members are `members` (not admins). */
export async function channelWith(api: TestServer, admin: TestUser, members: TestUser[]): Promise<Channel> {
  const channel = await createChannel(api, admin.token);
  for (const member of members) await addMember(api, admin.token, channel.id, { uid: member.uid });
  return channel;
}

export function expectError(res: ApiResponse<unknown>, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as ErrorBody | null)?.code }).toEqual({ status, code });
}

/** A 422 whose issues include one at `loc`. */
export function expectValidation(res: ApiResponse<unknown>, loc: (string | number)[]): void {
  expectError(res, 422, 'validation_error');
  const detail = (res.body as ErrorBody).detail as { loc: (string | number)[] }[];
  expect(detail.map((issue) => issue.loc)).toContainEqual(loc);
}
