// A small typed client of Skein's REST API (/v1). Shapes come from the generated OpenAPI types, so
// a field renamed in the service breaks the SDK's compile instead of its users at run time.
import type { components } from './generated/openapi.js';

export type Schemas = components['schemas'];
export type MessageInput = Schemas['MessageInput'];
export type MessageOutput = Schemas['MessageOutput'];
export type MessageCreateResult = Schemas['MessageCreateResult'];
export type TokenResponse = Schemas['TokenResponse'];
export type NotificationPage = Schemas['NotificationPage'];
export type UserOutput = Schemas['UserOutput'];
export type BookmarkState = Schemas['BookmarkState'];
export type PaginatedMessages = Schemas['PaginatedMessagesResponse'];
export type UnreadCounts = Schemas['UnreadCountsResponse'];
export type ThreadRead = Schemas['ThreadReadResponse'];
export type MessageEdits = Schemas['MessageEdits'];
export type Delivery = Schemas['Delivery'];
export type RotatedSecret = Schemas['RotatedSecret'];
export type ManagedUserUpdate = Schemas['ManagedUserUpdateInput'];
/** GET /v1/messages/{message_id}/context: `{message_id, entries, truncated}`, ready for a chat-model prompt. */
export type ConversationContext = Schemas['MessageContext'];
export type ContextEntry = Schemas['ContextEntry'];
export type EndpointOptions = Schemas['EndpointOptions'];
export type ErrorBody = Schemas['Error'];

/** A non-2xx answer: the contract's `{detail, code}` body with the status. */
export class SkeinError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: ErrorBody['detail'] | undefined,
  ) {
    super(`${status} ${code}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
    this.name = 'SkeinError';
  }
}

/** A message item of a POST /v1/messages batch that failed on its own (the batch answered 200). */
export class MessageRejected extends SkeinError {}

export interface ClientOptions {
  /** The service's base URL, e.g. http://localhost:8080 (no /v1). */
  baseUrl: string;
  /** A session token (`svc_session_…`) sent as `Authorization: Bearer`. */
  token?: string | undefined;
  /** An API key (`sk_…`) sent as `x-api-key`; used when no token is set. */
  apiKey?: string | undefined;
  fetch?: typeof fetch | undefined;
}

/** One page of a list: `skip` items passed over, at most `limit` answered. */
export type Page = {
  skip?: number | undefined;
  limit?: number | undefined;
};

export interface Credentials {
  token?: string | undefined;
  apiKey?: string | undefined;
}

export class SkeinClient {
  readonly baseUrl: string;
  private credentials: Credentials;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.credentials = { token: options.token, apiKey: options.apiKey };
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** What the socket client authenticates with. */
  get auth(): Credentials {
    return { ...this.credentials };
  }

  /** POST /v1/auth/register; the client then uses the new session. */
  async register(body: Schemas['RegisterRequest']): Promise<TokenResponse> {
    const tokens = await this.request<TokenResponse>('POST', '/v1/auth/register', body);
    this.credentials = { token: tokens.access_token };
    return tokens;
  }

  /** POST /v1/auth/password/login with a user tag or an email; the client then uses the session. */
  async login(body: Schemas['PasswordLoginRequest']): Promise<TokenResponse> {
    const tokens = await this.request<TokenResponse>('POST', '/v1/auth/password/login', body);
    this.credentials = { token: tokens.access_token };
    return tokens;
  }

  me(): Promise<UserOutput> {
    return this.request<UserOutput>('GET', '/v1/users/me');
  }

  /** POST /v1/messages with one input; answers the created message or throws MessageRejected. */
  async post(
    input: MessageInput,
    options: { idempotencyKey?: string | undefined } = {},
  ): Promise<MessageOutput> {
    const headers: Record<string, string> = {};
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const [result] = await this.postMany([input], headers);
    if (!result) throw new SkeinError(500, 'empty_answer', 'POST /v1/messages answered no result.');
    if (!result.ok) throw new MessageRejected(result.error.status, result.error.code, result.error.detail);
    return result.message;
  }

  /** POST /v1/messages with several inputs: one result per input, each ok or failed on its own. */
  postMany(inputs: MessageInput[], headers: Record<string, string> = {}): Promise<MessageCreateResult[]> {
    return this.request<MessageCreateResult[]>('POST', '/v1/messages', inputs, headers);
  }

  /**
   * Replies to a message as a chat reply does: with `"audience": "parent"` the reply also reaches the
   * parent's author, its CC recipients and the parent's channels the caller belongs to. With an
   * `idempotencyKey`, sending the same reply again (a retry) answers the first one and creates nothing.
   */
  reply(
    parent: string | { id: string },
    content: string,
    extra: Omit<MessageInput, 'content' | 'parent_id' | 'audience'> = {},
    options: { idempotencyKey?: string | undefined } = {},
  ): Promise<MessageOutput> {
    const parentId = typeof parent === 'string' ? parent : parent.id;
    return this.post({ ...extra, content, parent_id: parentId, audience: 'parent' }, options);
  }

  /** GET /v1/messages/{message_id}. */
  getMessage(id: string): Promise<MessageOutput> {
    return this.request<MessageOutput>('GET', `/v1/messages/${encodeURIComponent(id)}`);
  }

  /**
   * GET /v1/messages/{message_id}/context: the conversation a message you may see belongs to, oldest
   * first, as chat-model turns (`role` `assistant` for what you wrote, `user` for the rest): your
   * starting context when you are a bot with a `context_origin_id`, the reply ancestors you may see
   * from the root down, then the message. Bounded by `limit` entries (1–500, default 100) and
   * `maxChars` content characters (default 100 000); `truncated` says whether anything was cut.
   */
  messageContext(
    id: string,
    options: { limit?: number | undefined; maxChars?: number | undefined } = {},
  ): Promise<ConversationContext> {
    const path = withQuery(`/v1/messages/${encodeURIComponent(id)}/context`, {
      limit: options.limit,
      max_chars: options.maxChars,
    });
    return this.request<ConversationContext>('GET', path);
  }

  /** PATCH /v1/messages/{message_id}/content: the author (or its manager) edits the content; the old one is kept. */
  editMessage(id: string, content: string): Promise<MessageOutput> {
    return this.request<MessageOutput>('PATCH', `/v1/messages/${encodeURIComponent(id)}/content`, {
      content,
    });
  }

  /** GET /v1/messages/{message_id}/edits: the contents edits replaced, oldest first. */
  messageEdits(id: string): Promise<MessageEdits> {
    return this.request<MessageEdits>('GET', `/v1/messages/${encodeURIComponent(id)}/edits`);
  }

  /** GET /v1/notifications: events after `since` (a cursor from a page, a socket frame or a ready frame). */
  notifications(
    options: { since?: string | undefined; limit?: number | undefined } = {},
  ): Promise<NotificationPage> {
    return this.request<NotificationPage>('GET', withQuery('/v1/notifications', options));
  }

  /** PUT /v1/messages/{message_id}/bookmark: saves a message you can see; the first `saved_at` stays. */
  bookmark(messageId: string): Promise<BookmarkState> {
    return this.request<BookmarkState>('PUT', `/v1/messages/${encodeURIComponent(messageId)}/bookmark`);
  }

  /** DELETE /v1/messages/{message_id}/bookmark: answers `saved: false`, also when it was not saved. */
  unbookmark(messageId: string): Promise<BookmarkState> {
    return this.request<BookmarkState>('DELETE', `/v1/messages/${encodeURIComponent(messageId)}/bookmark`);
  }

  /** GET /v1/messages/bookmarks: your saved messages you can still see, newest bookmark first. */
  bookmarks(options: Page = {}): Promise<PaginatedMessages> {
    return this.request<PaginatedMessages>('GET', withQuery('/v1/messages/bookmarks', options));
  }

  /**
   * GET /v1/messages/unread: how many messages addressed to you are unread, in total and per thread
   * (one page of threads, newest unread first).
   */
  unreadCounts(options: Page = {}): Promise<UnreadCounts> {
    return this.request<UnreadCounts>('GET', withQuery('/v1/messages/unread', options));
  }

  /** POST /v1/messages/{message_id}/thread/read: marks read everything addressed to you in that message's thread. */
  markThreadRead(messageId: string): Promise<ThreadRead> {
    return this.request<ThreadRead>('POST', `/v1/messages/${encodeURIComponent(messageId)}/thread/read`);
  }

  /** PATCH /v1/managed/users/{uid}: a manager edits a bot's profile and bot metadata. */
  updateManagedUser(uid: string, changes: ManagedUserUpdate): Promise<UserOutput> {
    return this.request<UserOutput>('PATCH', `/v1/managed/users/${encodeURIComponent(uid)}`, changes);
  }

  /**
   * POST /v1/managed/users/{uid}/deactivate (or /reactivate when `active` is true): while deactivated
   * its keys and sessions fail and its webhooks stop.
   */
  setManagedUserActive(uid: string, active: boolean): Promise<UserOutput> {
    const action = active ? 'reactivate' : 'deactivate';
    return this.request<UserOutput>('POST', `/v1/managed/users/${encodeURIComponent(uid)}/${action}`);
  }

  /**
   * POST /v1/managed/users/{uid}/endpoint/secret/rotate: a new `whsec_` signing secret (shown once);
   * the old one also signs for `overlapSeconds` (default a day, 0 ends it at once).
   */
  rotateEndpointSecret(uid: string, overlapSeconds?: number): Promise<RotatedSecret> {
    const body = overlapSeconds === undefined ? {} : { overlap_seconds: overlapSeconds };
    return this.request<RotatedSecret>(
      'POST',
      `/v1/managed/users/${encodeURIComponent(uid)}/endpoint/secret/rotate`,
      body,
    );
  }

  /**
   * PATCH /v1/managed/users/{uid}/endpoint: the webhook endpoint's options, for the user itself and
   * its managers. `include_context: true` makes each delivered message carry `message_context`, its
   * conversation context as messageContext() reads it for the user (off by default).
   */
  setEndpointOptions(uid: string, options: Schemas['EndpointOptionsRequest']): Promise<EndpointOptions> {
    return this.request<EndpointOptions>(
      'PATCH',
      `/v1/managed/users/${encodeURIComponent(uid)}/endpoint`,
      options,
    );
  }

  /** POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver: one more attempt, same webhook-id. */
  redeliver(uid: string, webhookId: string): Promise<Delivery> {
    const path = `/v1/managed/users/${encodeURIComponent(uid)}/deliveries/${encodeURIComponent(webhookId)}/redeliver`;
    return this.request<Delivery>('POST', path);
  }

  /**
   * GET /v1/users/search: someone to write to, by tag prefix (the exact tag first) or by the start of
   * words of the display name; answers the users (at most `limit`, 1–50, default 10).
   */
  async searchUsers(q: string, limit?: number): Promise<UserOutput[]> {
    const found = await this.request<Schemas['UserList']>('GET', withQuery('/v1/users/search', { q, limit }));
    return found.users;
  }

  /** Any other operation: answers the parsed JSON body, throws SkeinError on a non-2xx status. */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (this.credentials.token) headers.authorization = `Bearer ${this.credentials.token}`;
    else if (this.credentials.apiKey) headers['x-api-key'] = this.credentials.apiKey;
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await this.fetchImpl(this.baseUrl + path, init);
    const text = await res.text();
    let parsed: unknown = null;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!res.ok) {
      const error = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Partial<ErrorBody>;
      throw new SkeinError(res.status, error.code ?? 'http_error', error.detail ?? text);
    }
    return parsed as T;
  }
}

/** The path with the given query parameters; undefined ones are left out. */
function withQuery(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  return query.size > 0 ? `${path}?${query.toString()}` : path;
}
