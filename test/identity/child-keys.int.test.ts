// Keys minted from keys live no longer than their parent (docs/decisions/024, second review finding
// #5), through the HTTP API and GraphQL against the real Neo4j: POST /v1/auth/keys/self made with a
// key (x-api-key, or a session exchanged from it at POST /v1/auth/token) caps the new key's
// expires_at at the parent's, and revoking the parent ends the child, the sessions exchanged from it
// and its own children at once. A bot's key minted through a delegation (spec, Authentication 7) is
// capped at the expiry of the manager's key behind it, and stays the bot's permanent key otherwise.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createKey, createManaged, registerWriter, type TestUser } from '../support/factories.js';
import type { Token } from '../support/api-types.js';
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
  expires_at: string | null;
}

const IN_A_DAY = () => new Date(Date.now() + 24 * 3600 * 1000).toISOString();
const IN_A_WEEK = () => new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
const FAR = '2099-01-01T00:00:00.000Z';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POST /v1/auth/keys/self with these credentials; the answer must be 200. */
async function mint(credentials: { token?: string; apiKey?: string }, body: Record<string, unknown> = {}) {
  const res = await api.request<KeyCreated>('POST', '/v1/auth/keys/self', { ...credentials, body });
  expect(res.status).toBe(200);
  return res.body;
}

/** A session exchanged from the key at POST /v1/auth/token. */
async function exchange(apiKey: string): Promise<string> {
  const res = await api.request<Token>('POST', '/v1/auth/token', { apiKey, body: {} });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

const keyStatus = (apiKey: string) =>
  api.request('GET', '/v1/users/me', { apiKey }).then((res) => res.status);
const sessionStatus = (token: string) =>
  api.request('GET', '/v1/auth/session', { token }).then((res) => res.status);

const revoke = async (owner: TestUser, keyId: string) => {
  const res = await api.request('DELETE', `/v1/auth/keys/${keyId}`, { token: owner.token });
  expect(res.status).toBe(200);
};

async function listed(owner: TestUser, keyId: string) {
  const res = await api.request<{ keys: { key_id: string; expires_at: string | null; revoked: boolean }[] }>(
    'GET',
    '/v1/auth/keys',
    { token: owner.token },
  );
  return res.body.keys.find((key) => key.key_id === keyId);
}

describe('POST /v1/auth/keys/self with a key: the child’s expiry is capped at the parent’s', () => {
  it('when an expiring key mints a key asking no expiry, or 2099, then the child expires with the parent', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parentExpiry = IN_A_DAY();
    const parent = await createKey(api, user.token, { expires_at: parentExpiry });
    const unasked = await mint({ apiKey: parent.key });
    expect(unasked.expires_at).toBe(parentExpiry);
    const far = await mint({ apiKey: parent.key }, { expires_at: FAR });
    expect(far.expires_at).toBe(parentExpiry);
    expect((await listed(user, far.key_id))?.expires_at).toBe(parentExpiry);
    expect(await keyStatus(far.key)).toBe(200);
  });

  it('when the child asks for an earlier expiry than the parent’s, then it keeps its own', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parent = await createKey(api, user.token, { expires_at: IN_A_WEEK() });
    const sooner = IN_A_DAY();
    expect((await mint({ apiKey: parent.key }, { expires_at: sooner })).expires_at).toBe(sooner);
  });

  it('when a session exchanged from an expiring key mints a key, then the key is capped at that key’s expiry, not the session’s', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parentExpiry = IN_A_DAY();
    const parent = await createKey(api, user.token, { expires_at: parentExpiry });
    const session = await exchange(parent.key);
    expect((await mint({ token: session })).expires_at).toBe(parentExpiry);
    expect((await mint({ token: session }, { expires_at: FAR })).expires_at).toBe(parentExpiry);
  });

  it('when a key’s child mints a key, then the grandchild is capped too', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parentExpiry = IN_A_DAY();
    const parent = await createKey(api, user.token, { expires_at: parentExpiry });
    const child = await mint({ apiKey: parent.key });
    expect((await mint({ apiKey: child.key }, { expires_at: FAR })).expires_at).toBe(parentExpiry);
  });

  it('when a key without expiry mints a key, or a password session does, then the asked expiry stands', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parent = await createKey(api, user.token);
    expect((await mint({ apiKey: parent.key })).expires_at).toBeNull();
    expect((await mint({ apiKey: parent.key }, { expires_at: FAR })).expires_at).toBe(FAR);
    expect((await mint({ token: user.token }, { expires_at: FAR })).expires_at).toBe(FAR);
    expect((await mint({ token: user.token })).expires_at).toBeNull();
  });

  it('when the parent expires, then the child stops working with it', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parent = await createKey(api, user.token, {
      expires_at: new Date(Date.now() + 4000).toISOString(),
    });
    const child = await mint({ apiKey: parent.key }, { expires_at: FAR });
    expect(child.expires_at).not.toBe(FAR);
    expect(await keyStatus(child.key)).toBe(200);
    // Wait (polling, no timing assert) until the parent has expired.
    for (let attempt = 0; attempt < 300 && (await keyStatus(parent.key)) === 200; attempt += 1)
      await sleep(100);
    expect(await keyStatus(parent.key)).toBe(401);
    expect(await keyStatus(child.key)).toBe(401);
    const refused = await api.request('POST', '/v1/auth/token', { apiKey: child.key, body: {} });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'invalid_api_key' });
  });

  it('when a key mints a key through GraphQL, then the child is capped the same way', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parentExpiry = IN_A_DAY();
    const parent = await createKey(api, user.token, { expires_at: parentExpiry });
    const res = await api.graphql<{ createApiKey: { expires_at: string | null } }>(
      'mutation($input: KeyCreateInput) { createApiKey(input: $input) { expires_at } }',
      { input: { expires_at: FAR } },
      { apiKey: parent.key },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.createApiKey.expires_at).toBe(parentExpiry);
  });
});

describe('DELETE /v1/auth/keys/{key_id}: revoking a parent ends its children at once', () => {
  it('when the parent is revoked, then the child, the sessions exchanged from it and its own child answer 401 at once, and the list shows them revoked', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parent = await createKey(api, user.token);
    const child = await mint({ apiKey: parent.key });
    const grandchild = await mint({ apiKey: child.key });
    const childSession = await exchange(child.key);
    const grandchildSession = await exchange(grandchild.key);
    expect(await keyStatus(child.key)).toBe(200);
    expect(await sessionStatus(childSession)).toBe(200);

    await revoke(user, parent.key_id);
    for (const key of [child.key, grandchild.key]) {
      const res = await api.request('GET', '/v1/users/me', { apiKey: key });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_api_key' });
      expect((await api.request('POST', '/v1/auth/token', { apiKey: key, body: {} })).status).toBe(401);
    }
    for (const token of [childSession, grandchildSession]) {
      const res = await api.request('GET', '/v1/auth/session', { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_session' });
    }
    expect((await listed(user, child.key_id))?.revoked).toBe(true);
    expect((await listed(user, grandchild.key_id))?.revoked).toBe(true);
    // The owner's own sign-in is untouched.
    expect(await sessionStatus(user.token)).toBe(200);
  });

  it('when a session exchanged from the parent minted the child and the parent is revoked, then the child ends too', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parent = await createKey(api, user.token);
    const child = await mint({ token: await exchange(parent.key) });
    expect(await keyStatus(child.key)).toBe(200);
    await revoke(user, parent.key_id);
    expect(await keyStatus(child.key)).toBe(401);
    expect((await listed(user, child.key_id))?.revoked).toBe(true);
  });

  it('when the child is revoked, then the parent keeps working', async () => {
    const user = await registerWriter(api, { apiAccess: true });
    const parent = await createKey(api, user.token);
    const child = await mint({ apiKey: parent.key });
    await revoke(user, child.key_id);
    expect(await keyStatus(child.key)).toBe(401);
    expect(await keyStatus(parent.key)).toBe(200);
    expect((await listed(user, parent.key_id))?.revoked).toBe(false);
  });

  it('when a manager delegates with a child key and the parent is revoked, then the delegated session ends at once', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const parent = await createKey(api, manager.token);
    const child = await mint({ apiKey: parent.key });
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      apiKey: child.key,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    expect(await sessionStatus(delegated.body.access_token)).toBe(200);
    await revoke(manager, parent.key_id);
    expect(await sessionStatus(delegated.body.access_token)).toBe(401);
  });
});

describe('a bot’s key minted through a delegation (spec, Authentication 7)', () => {
  /** Steps a–c: the manager's key → a manager bearer token → delegate → the bot's key. */
  async function botKeyThrough(managerKey: string, botUid: string, body: Record<string, unknown> = {}) {
    const bearer = await exchange(managerKey);
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: bearer,
      body: { managed_uid: botUid },
    });
    expect(delegated.status).toBe(200);
    return mint({ token: delegated.body.access_token }, body);
  }

  it('when the manager’s key has no expiry, then the bot’s key is permanent and outlives the manager’s key', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const managerKey = await createKey(api, manager.token, { label: 'ops' });
    const botKey = await botKeyThrough(managerKey.key, bot.uid, { label: 'bot' });
    expect(botKey.expires_at).toBeNull();
    // The manager rotates its own key: the bot's permanent key is the bot's, and keeps working.
    await revoke(manager, managerKey.key_id);
    expect(await keyStatus(botKey.key)).toBe(200);
    expect(await sessionStatus(await exchange(botKey.key))).toBe(200);
  });

  it('when the manager’s key expires, then the bot’s key minted through it is capped at that expiry', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const managerExpiry = IN_A_DAY();
    const managerKey = await createKey(api, manager.token, { expires_at: managerExpiry });
    expect((await botKeyThrough(managerKey.key, bot.uid)).expires_at).toBe(managerExpiry);
    expect((await botKeyThrough(managerKey.key, bot.uid, { expires_at: FAR })).expires_at).toBe(
      managerExpiry,
    );
    // Delegating with the key itself (x-api-key) caps the same way.
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      apiKey: managerKey.key,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    expect((await mint({ token: delegated.body.access_token }, { expires_at: FAR })).expires_at).toBe(
      managerExpiry,
    );
  });

  it('when the manager delegates from a password session, then the bot’s key takes the expiry asked', async () => {
    const manager = await registerWriter(api, { apiAccess: true });
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect((await mint({ token: delegated.body.access_token }, { expires_at: FAR })).expires_at).toBe(FAR);
  });
});
