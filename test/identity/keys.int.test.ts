// API keys: GET /v1/auth/keys, POST /v1/auth/keys/self, DELETE /v1/auth/keys/{key_id}.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WRITER_SCOPES, createKey, registerUser, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface KeyCreated {
  key_id: string;
  key: string;
  label: string | null;
  scopes_cap: string | null;
  expires_at: string | null;
}

interface KeyOutput {
  key_id: string;
  label: string | null;
  prefix: string;
  scopes_cap: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked: boolean;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const KEY_FIELDS = [
  'key_id',
  'label',
  'prefix',
  'scopes_cap',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked',
].sort();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const scopeSet = (text: string | null) => (text === null ? null : text.split(' ').sort());

async function listKeys(token: string): Promise<KeyOutput[]> {
  const res = await api.request<{ keys: KeyOutput[] }>('GET', '/v1/auth/keys', { token });
  expect(res.status).toBe(200);
  return res.body.keys;
}

async function findKey(token: string, keyId: string): Promise<KeyOutput> {
  const key = (await listKeys(token)).find((entry) => entry.key_id === keyId);
  if (!key) throw new Error(`key ${keyId} not listed`);
  return key;
}

describe('GET /v1/auth/keys', () => {
  it('when the user has no keys, then an empty list', async () => {
    const user = await registerUser(api);
    const res = await api.request('GET', '/v1/auth/keys', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keys: [] });
  });

  it('when the user has keys, then each appears in the contract shape, without its secret', async () => {
    const user = await registerUser(api);
    const first = await createKey(api, user.token);
    const second = await createKey(api, user.token, { label: 'second' });
    const res = await api.request<{ keys: KeyOutput[] }>('GET', '/v1/auth/keys', { token: user.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['keys']);
    expect(res.body.keys.map((key) => key.key_id).sort()).toEqual([first.key_id, second.key_id].sort());
    for (const entry of res.body.keys) {
      expect(Object.keys(entry).sort()).toEqual(KEY_FIELDS);
      expect(entry.key_id).toMatch(/^[0-9a-f]{8}$/);
      expect(entry.created_at).toMatch(ISO_MS);
      expect(entry.revoked).toBe(false);
      expect(entry.last_used_at).toBeNull();
      expect(entry.expires_at).toBeNull();
      expect(entry.scopes_cap).toBeNull();
      const secret = entry.key_id === first.key_id ? first.key : second.key;
      expect(secret.startsWith(entry.prefix)).toBe(true);
      expect(entry.prefix.startsWith('sk_')).toBe(true);
      expect(entry.prefix.length).toBeLessThan(secret.length - 20);
    }
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(first.key);
    expect(text).not.toContain(second.key);
    expect(text).not.toContain(first.key.slice(-20));
    expect(text).not.toContain(second.key.slice(-20));
  });

  it('when another user lists keys, then the first user’s keys are not there', async () => {
    const owner = await registerUser(api);
    const { key_id } = await createKey(api, owner.token);
    const other = await registerUser(api);
    expect((await listKeys(other.token)).map((key) => key.key_id)).not.toContain(key_id);
  });

  it('when no credentials are sent, then 401', async () => {
    const res = await api.request('GET', '/v1/auth/keys');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
  });
});

describe('POST /v1/auth/keys/self', () => {
  it('when a key is created, then its sk_ secret is shown in the answer', async () => {
    const user = await registerUser(api);
    const res = await api.request<KeyCreated>('POST', '/v1/auth/keys/self', { token: user.token, body: {} });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'key', 'key_id', 'label', 'scopes_cap']);
    expect(res.body.key_id).toMatch(/^[0-9a-f]{8}$/);
    expect(res.body.key).toMatch(/^sk_/);
    expect(res.body.key).toContain(res.body.key_id);
    expect(res.body.label).toBeNull();
    expect(res.body.expires_at).toBeNull();
  });

  it('when label, scopes_cap and expires_at are given, then they come back at creation and in the list', async () => {
    const user = await registerWriter(api);
    const expiresAt = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    const res = await api.request<KeyCreated>('POST', '/v1/auth/keys/self', {
      token: user.token,
      body: { label: 'ci runner', scopes_cap: 'messages.read messages.write', expires_at: expiresAt },
    });
    expect(res.status).toBe(200);
    expect(res.body.label).toBe('ci runner');
    expect(scopeSet(res.body.scopes_cap)).toEqual(['messages.read', 'messages.write']);
    expect(res.body.expires_at).toBe(expiresAt);

    const listed = await findKey(user.token, res.body.key_id);
    expect(listed.label).toBe('ci runner');
    expect(scopeSet(listed.scopes_cap)).toEqual(['messages.read', 'messages.write']);
    expect(listed.expires_at).toBe(expiresAt);
    expect(listed.revoked).toBe(false);
  });

  it('when expires_at is in the past, then 422 on expires_at', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/keys/self', {
      token: user.token,
      body: { expires_at: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'validation_error',
      detail: [{ loc: ['body', 'expires_at'], msg: expect.any(String), type: expect.any(String) }],
    });
    expect(await listKeys(user.token)).toEqual([]);
  });

  it('when expires_at is not a timestamp, then 422', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/keys/self', {
      token: user.token,
      body: { expires_at: 'next tuesday' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'validation_error',
      detail: expect.arrayContaining([expect.objectContaining({ loc: ['body', 'expires_at'] })]),
    });
  });

  it('when scopes_cap names an unknown scope, then 422 on scopes_cap and no key', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/keys/self', {
      token: user.token,
      body: { scopes_cap: 'messages.read root' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['body', 'scopes_cap'] }] });
    expect(await listKeys(user.token)).toEqual([]);
  });

  it('when the creating session was narrowed to messages.read, then a key asked without a cap is capped at messages.read', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token);
    const narrowed = await api.request<{ access_token: string }>('POST', '/v1/auth/token', {
      apiKey: key,
      body: { requested_permissions: 'messages.read' },
    });
    expect(narrowed.status).toBe(200);

    const uncapped = await api.request<KeyCreated>('POST', '/v1/auth/keys/self', {
      token: narrowed.body.access_token,
      body: {},
    });
    expect(uncapped.status).toBe(200);
    expect(uncapped.body.scopes_cap).toBe('messages.read');
    expect((await findKey(user.token, uncapped.body.key_id)).scopes_cap).toBe('messages.read');

    const wider = await api.request<KeyCreated>('POST', '/v1/auth/keys/self', {
      token: narrowed.body.access_token,
      body: { scopes_cap: 'messages.read messages.write' },
    });
    expect(wider.status).toBe(200);
    expect(wider.body.scopes_cap).toBe('messages.read');

    const me = await api.request<{ scopes: string[] }>('GET', '/v1/users/me', { apiKey: uncapped.body.key });
    expect(me.body.scopes).toEqual(['messages.read']);
  });

  it('when a key is capped at messages.read, then requests with it hold grant ∩ cap', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const capped = await createKey(api, user.token, { scopes_cap: 'messages.read' });
    const free = await createKey(api, user.token);
    const withCapped = await api.request<{ uid: string; scopes: string[] }>('GET', '/v1/users/me', {
      apiKey: capped.key,
    });
    expect(withCapped.status).toBe(200);
    expect(withCapped.body.uid).toBe(user.uid);
    expect(withCapped.body.scopes).toEqual(['messages.read']);
    const withFree = await api.request<{ scopes: string[] }>('GET', '/v1/users/me', { apiKey: free.key });
    expect([...withFree.body.scopes].sort()).toEqual([...WRITER_SCOPES].sort());
  });

  it('when a key is capped beyond the grant, then requests with it hold only the grant', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, user.token, { scopes_cap: 'messages.read channels.create admin' });
    const me = await api.request<{ scopes: string[] }>('GET', '/v1/users/me', { apiKey: key });
    expect(me.body.scopes).toEqual(['messages.read']);
  });

  it('when a key is used, then last_used_at is set', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, user.token);
    expect((await findKey(user.token, key_id)).last_used_at).toBeNull();
    const used = Date.now();
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(200);

    // Recording use is off the request path, so give it a moment to land.
    let lastUsed: string | null = null;
    for (let attempt = 0; attempt < 50 && lastUsed === null; attempt += 1) {
      lastUsed = (await findKey(user.token, key_id)).last_used_at;
      if (lastUsed === null) await sleep(100);
    }
    expect(lastUsed).toMatch(ISO_MS);
    expect(Date.parse(lastUsed!)).toBeGreaterThanOrEqual(used - 1000);
    expect(Date.parse(lastUsed!)).toBeLessThanOrEqual(Date.now());
  });

  it('when the body holds an unknown field, then 422', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/keys/self', { token: user.token, body: { owner: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error' });
  });

  it('when no credentials are sent, then 401', async () => {
    const res = await api.request('POST', '/v1/auth/keys/self', { body: {} });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'not_authenticated' });
  });
});

describe('DELETE /v1/auth/keys/{key_id}', () => {
  it('when the owner revokes a key, then {key_id, revoked: true}, the list says revoked and the key answers 401', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, user.token);
    expect((await api.request('GET', '/v1/users/me', { apiKey: key })).status).toBe(200);
    const res = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ key_id, revoked: true });
    expect((await findKey(user.token, key_id)).revoked).toBe(true);
    const after = await api.request('GET', '/v1/users/me', { apiKey: key });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'invalid_api_key' });
  });

  it('when a key is revoked twice, then the second answer is the same', async () => {
    const user = await registerUser(api);
    const { key_id } = await createKey(api, user.token);
    const first = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token });
    const second = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: user.token });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ key_id, revoked: true });
    expect((await findKey(user.token, key_id)).revoked).toBe(true);
  });

  it('when one key is revoked, then the user’s other keys keep working', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const revoked = await createKey(api, user.token);
    const kept = await createKey(api, user.token);
    expect(
      (await api.request('DELETE', `/v1/auth/keys/${revoked.key_id}`, { token: user.token })).status,
    ).toBe(200);
    expect((await api.request('GET', '/v1/users/me', { apiKey: kept.key })).status).toBe(200);
    expect((await findKey(user.token, kept.key_id)).revoked).toBe(false);
  });

  it('when a user revokes another user’s key, then 404 key_not_found and the key keeps working', async () => {
    const owner = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, owner.token);
    const intruder = await registerUser(api);
    const res = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: intruder.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'key_not_found' });
    const me = await api.request<{ uid: string }>('GET', '/v1/users/me', { apiKey: key });
    expect(me.status).toBe(200);
    expect(me.body.uid).toBe(owner.uid);
    expect((await findKey(owner.token, key_id)).revoked).toBe(false);
  });

  it('when the key does not exist, then the same 404 as for another user’s key', async () => {
    const owner = await registerUser(api);
    const { key_id } = await createKey(api, owner.token);
    const intruder = await registerUser(api);
    const foreign = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: intruder.token });
    const missing = await api.request(
      'DELETE',
      `/v1/auth/keys/${key_id === '00000000' ? '00000001' : '00000000'}`,
      {
        token: intruder.token,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(foreign.body);
  });

  it('when the key_id is malformed, then 422 on key_id', async () => {
    const user = await registerUser(api);
    for (const keyId of ['XYZ', 'ABCDEF12', '123456789']) {
      const res = await api.request('DELETE', `/v1/auth/keys/${keyId}`, { token: user.token });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error', detail: [{ loc: ['path', 'key_id'] }] });
    }
  });

  it('when no credentials are sent, then 401', async () => {
    const owner = await registerUser(api);
    const { key_id } = await createKey(api, owner.token);
    const res = await api.request('DELETE', `/v1/auth/keys/${key_id}`);
    expect(res.status).toBe(401);
    expect((await findKey(owner.token, key_id)).revoked).toBe(false);
  });
});
