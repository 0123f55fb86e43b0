// The few API calls the benchmark's set-up makes, through the real service: log in, grant (as the
// bootstrap admin), managed users and their delegated sessions, posts. Every failure throws with
// the answer's body, so a broken set-up stops the run early.

export interface MessageOutputLike {
  id: string;
  root_id: string;
}

export class Api {
  constructor(readonly baseUrl: string) {}

  async call<T>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; expect?: number[] } = {},
  ): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    if (!(options.expect ?? [200, 201]).includes(res.status)) {
      throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    }
    return (text ? JSON.parse(text) : null) as T;
  }

  async login(userTag: string, password: string): Promise<string> {
    const answer = await this.call<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: userTag, password },
    });
    return answer.access_token;
  }

  async grant(adminToken: string, uid: string, scopes: string[]): Promise<void> {
    await this.call('PATCH', `/v1/admin/users/${uid}`, { token: adminToken, body: { scopes } });
  }

  async createManaged(token: string, userTag: string, isBot: boolean): Promise<string> {
    const user = await this.call<{ uid: string }>('POST', '/v1/managed/users', {
      token,
      body: { user_tag: userTag, is_bot: isBot },
    });
    return user.uid;
  }

  async delegate(token: string, managedUid: string): Promise<string> {
    const answer = await this.call<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token,
      body: { managed_uid: managedUid },
    });
    return answer.access_token;
  }

  /** Posts and answers the created messages; any failed item throws. */
  async post(token: string, body: unknown): Promise<MessageOutputLike[]> {
    const results = await this.call<
      { ok: boolean; message?: MessageOutputLike; error?: { status: number; code: string; detail: string } }[]
    >('POST', '/v1/messages', { token, body });
    return results.map((result) => {
      if (!result.ok || !result.message)
        throw new Error(`a posted item failed: ${JSON.stringify(result.error)}`);
      return result.message;
    });
  }
}

/** Runs `work` over the items with at most `concurrency` at a time, answering in order. */
export async function mapPool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        out[index] = await work(items[index]!, index);
      }
    }),
  );
  return out;
}

/** The session id inside a token `svc_session_<id>.<secret>` (what the session lookup is keyed by). */
export function sessionIdOf(token: string): string {
  const match = /^svc_session_([0-9a-f]+)\./.exec(token);
  if (!match) throw new Error('not a session token');
  return match[1]!;
}
