// Shared set-up of the message edit tests: people, bots with their managers, and short calls.
import { expect } from '@jest/globals';
import {
  createManaged,
  postMessage,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import type { ApiResponse, TestServer } from '../support/test-server.js';

export interface Message extends PostedMessage {
  content: string;
  subject: string | null;
  public: boolean;
  tags: string[];
  reply_ids: string[];
  reply_order: string[] | null;
  default_outgoing: string | null;
  stitch_parent_ids: string[];
  stitch_child_ids: string[];
  recipients: { uid: string; read_at: string | null }[];
  is_saved: boolean;
}

export interface ErrorBody {
  code: string;
  detail: unknown;
}

export interface BatchItemError {
  message_id: string;
  status: number;
  code: string;
  detail: string;
}

export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** An id in the right format that no message has (ids are random, a clash is not a concern). */
export const MISSING_ID = 'ffffffff';

export function post(api: TestServer, token: string, input: Record<string, unknown>): Promise<Message> {
  return postMessage(api, token, input) as Promise<Message>;
}

export function read(api: TestServer, token: string, id: string): Promise<ApiResponse<Message>> {
  return api.request<Message>('GET', `/v1/messages/${id}`, { token });
}

/** The message as `token` sees it; fails the test when it cannot be read. */
export async function readOk(api: TestServer, token: string, id: string): Promise<Message> {
  const res = await read(api, token, id);
  expect(res.status).toBe(200);
  return res.body;
}

export async function expectGone(api: TestServer, token: string, id: string): Promise<void> {
  const res = await read(api, token, id);
  expect(res.status).toBe(404);
}

export function expectError(res: ApiResponse<unknown>, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as ErrorBody).code }).toEqual({ status, code });
}

/** A manager (a writer) with a bot of its own and a delegated session acting as the bot. */
export interface ManagedBot {
  manager: TestUser;
  bot: { uid: string; user_tag: string };
  botToken: string;
}

export async function managerWithBot(api: TestServer): Promise<ManagedBot> {
  const manager = await registerWriter(api);
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const res = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  expect(res.status).toBe(200);
  return { manager, bot, botToken: res.body.access_token };
}

/** A session of the manager acting as its bot through POST /v1/auth/act-as/{uid}. */
export async function actAs(api: TestServer, managerToken: string, uid: string): Promise<string> {
  const res = await api.request<{ access_token: string }>('POST', `/v1/auth/act-as/${uid}`, {
    token: managerToken,
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

/** Stitches `from` to `to` through the links API. */
export async function stitch(api: TestServer, token: string, from: string, to: string): Promise<void> {
  const res = await api.request('POST', `/v1/links/messages/${from}/${to}`, { token });
  expect(res.status).toBe(200);
}
