// GET /v1/models and the GraphQL field models: bots and their versions as an OpenAI model list.
// Other test files create bots too, so assertions look for this file's bots within the list.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
  grant,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Model {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  uid: string;
  user_tag: string;
  display_name: string | null;
  version: string | null;
  modalities: string[];
  integrations: string[];
}
interface ModelList {
  object: string;
  data: Model[];
}
interface Bot {
  uid: string;
  user_tag: string;
  created_at: string;
}

let api: TestServer;
let manager: TestUser, reader: TestUser, selfBot: TestUser;
let versioned: Bot, plain: Bot, notBot: Bot;
let selfBotCreatedAt: string;

beforeAll(async () => {
  api = await startTestServer();
  [manager, reader, selfBot] = await Promise.all([registerWriter(api), registerUser(api), registerUser(api)]);
  // Tags chosen so their case-insensitive order is known: "mdl…A" < "mdl…b" < "mdl…C".
  const stem = uniqueTag('mdl');
  versioned = (await createManaged(api, manager.token, {
    user_tag: `${stem}A`,
    display_name: 'Versioned Bot',
    is_bot: true,
    bot: { versions: ['v1', 'v2-large'], modalities: ['text', 'image'], integrations: ['webhook'] },
  })) as Bot;
  plain = (await createManaged(api, manager.token, { user_tag: `${stem}b`, is_bot: true })) as Bot;
  notBot = (await createManaged(api, manager.token, { user_tag: `${stem}C`, is_bot: false })) as Bot;
  // A user who declares themself a bot has no manager: they own their own models.
  const profile = await api.request<Bot>('POST', '/v1/users/profile', {
    token: selfBot.token,
    body: { is_bot: true, bot: { versions: ['solo'] } },
  });
  expect(profile.status).toBe(200);
  selfBotCreatedAt = profile.body.created_at;
});

afterAll(async () => {
  await api.close();
});

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

async function listModels(token: string): Promise<ModelList> {
  const res = await api.request<ModelList>('GET', '/v1/models', { token });
  expect(res.status).toBe(200);
  return res.body;
}

describe('GET /v1/models', () => {
  it('when a reader lists models, then each bot and each version is an entry, in tag order, owned by the manager', async () => {
    const list = await listModels(reader.token);
    expect(list.object).toBe('list');
    const ours = list.data.filter((m) => m.id.startsWith(versioned.user_tag.slice(0, -1)));
    const versionedEntry = (id: string, version: string | null): Model => ({
      id,
      object: 'model',
      created: seconds(versioned.created_at),
      owned_by: manager.tag,
      uid: versioned.uid,
      user_tag: versioned.user_tag,
      display_name: 'Versioned Bot',
      version,
      modalities: ['text', 'image'],
      integrations: ['webhook'],
    });
    expect(ours).toEqual([
      versionedEntry(versioned.user_tag, null),
      versionedEntry(`${versioned.user_tag}:v1`, 'v1'),
      versionedEntry(`${versioned.user_tag}:v2-large`, 'v2-large'),
      {
        id: plain.user_tag,
        object: 'model',
        created: seconds(plain.created_at),
        owned_by: manager.tag,
        uid: plain.uid,
        user_tag: plain.user_tag,
        display_name: null,
        version: null,
        modalities: [],
        integrations: [],
      },
    ]);
    expect(list.data.map((m) => m.id)).not.toContain(notBot.user_tag);
  });

  it('when a user made themself a bot, then they own their entries', async () => {
    const list = await listModels(reader.token);
    const theirs = list.data.filter((m) => m.id === selfBot.tag || m.id.startsWith(`${selfBot.tag}:`));
    expect(
      theirs.map(({ id, created, owned_by, uid, version }) => ({ id, created, owned_by, uid, version })),
    ).toEqual([
      {
        id: selfBot.tag,
        created: seconds(selfBotCreatedAt),
        owned_by: selfBot.tag,
        uid: selfBot.uid,
        version: null,
      },
      {
        id: `${selfBot.tag}:solo`,
        created: seconds(selfBotCreatedAt),
        owned_by: selfBot.tag,
        uid: selfBot.uid,
        version: 'solo',
      },
    ]);
  });

  it('when the list is read, then bots are in case-insensitive tag order and ids are unique', async () => {
    const list = await listModels(reader.token);
    const ids = list.data.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const bots = ids.filter((id) => !id.includes(':')).map((id) => id.toLowerCase());
    expect([...bots].sort()).toEqual(bots);
    for (const model of list.data) expect(model.object).toBe('model');
  });

  it('when a bot is deactivated, then it is not listed; reactivated, it is again', async () => {
    const bot = (await createManaged(api, manager.token, { is_bot: true, bot: { versions: ['x'] } })) as Bot;
    const ids = async () => (await listModels(reader.token)).data.map((m) => m.id);
    expect(await ids()).toContain(bot.user_tag);
    const off = await api.request('POST', `/v1/managed/users/${bot.uid}/deactivate`, {
      token: manager.token,
    });
    expect(off.status).toBe(200);
    expect(await ids()).not.toContain(bot.user_tag);
    expect(await ids()).not.toContain(`${bot.user_tag}:x`);
    const on = await api.request('POST', `/v1/managed/users/${bot.uid}/reactivate`, { token: manager.token });
    expect(on.status).toBe(200);
    expect(await ids()).toContain(bot.user_tag);
  });

  it('when a bot is banned, or its only manager is, then it is not listed (as user search leaves it out)', async () => {
    const otherManager = await registerWriter(api);
    const [bannedBot, orphanedBot] = await Promise.all([
      createManaged(api, manager.token, { is_bot: true }),
      createManaged(api, otherManager.token, { is_bot: true, bot: { versions: ['v1'] } }),
    ]);
    const ids = async () => (await listModels(reader.token)).data.map((m) => m.id);
    expect(await ids()).toEqual(expect.arrayContaining([bannedBot.user_tag, orphanedBot.user_tag]));
    await grant(api, bannedBot.uid, { scopes: [] });
    await grant(api, otherManager.uid, { scopes: [] });
    const after = await ids();
    for (const id of [bannedBot.user_tag, orphanedBot.user_tag, `${orphanedBot.user_tag}:v1`]) {
      expect(after).not.toContain(id);
    }
    expect(after).toContain(versioned.user_tag);
  });

  it('when an API key comes as Authorization: Bearer (as OpenAI clients send it), then it is accepted as the key', async () => {
    const partner = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, partner.token);
    const res = await api.request<ModelList>('GET', '/v1/models', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((m) => m.id)).toContain(versioned.user_tag);
    const me = await api.request<{ uid: string }>('GET', '/v1/users/me', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(me.body.uid).toBe(partner.uid);
  });

  it('when a Bearer API key is revoked or wrong, then 401 invalid_api_key', async () => {
    const partner = await registerWriter(api, { apiAccess: true });
    const { key, key_id } = await createKey(api, partner.token);
    const revoke = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: partner.token });
    expect(revoke.status).toBe(200);
    for (const bearer of [key, `${key.slice(0, -4)}AAAA`, 'sk_nonsense']) {
      const res = await api.request('GET', '/v1/models', { headers: { authorization: `Bearer ${bearer}` } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_api_key' });
    }
  });

  it('when a Bearer API key lacks messages.read, then 403 insufficient_scope, as in x-api-key', async () => {
    const partner = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, partner.token, { scopes_cap: 'messages.write' });
    const res = await api.request('GET', '/v1/models', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when a Bearer API key belongs to an account without API access, then 403 api_access_required', async () => {
    const partner = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, partner.token);
    await grant(api, partner.uid, { has_api_access: false });
    const res = await api.request('GET', '/v1/models', { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'api_access_required' });
  });

  it('when nobody is signed in, then 401', async () => {
    const res = await api.request('GET', '/v1/models');
    expect(res.status).toBe(401);
  });

  it('when the credential lacks messages.read, then 403 insufficient_scope', async () => {
    const partner = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, partner.token, { scopes_cap: 'messages.write' });
    const res = await api.request('GET', '/v1/models', { apiKey: key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('GraphQL models', () => {
  it('when a reader asks, then the same list as REST comes back', async () => {
    const res = await api.graphql<{ models: ModelList }>(
      '{ models { object data { id object created owned_by uid user_tag display_name version modalities integrations } } }',
      {},
      {
        token: reader.token,
      },
    );
    expect(res.body.errors).toBeUndefined();
    const rest = await listModels(reader.token);
    expect(res.body.data!.models.object).toBe('list');
    const pick = (list: ModelList) => list.data.filter((m) => m.id.startsWith(versioned.user_tag));
    expect(pick(res.body.data!.models)).toEqual(pick(rest));
    expect(pick(rest)).toHaveLength(3);
  });

  it('when nobody is signed in, then 401', async () => {
    const res = await api.graphql('{ models { object } }');
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ status: 401 });
  });
});
