// GET /v1/models and the GraphQL field models: bots and their versions as an OpenAI model list.
// Other test files create bots too, so assertions look for this file's bots within the list.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createKey,
  createManaged,
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
    is_bot: true,
    bot: { versions: ['v1', 'v2-large'] },
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
    expect(ours).toEqual([
      {
        id: versioned.user_tag,
        object: 'model',
        created: seconds(versioned.created_at),
        owned_by: manager.tag,
      },
      {
        id: `${versioned.user_tag}:v1`,
        object: 'model',
        created: seconds(versioned.created_at),
        owned_by: manager.tag,
      },
      {
        id: `${versioned.user_tag}:v2-large`,
        object: 'model',
        created: seconds(versioned.created_at),
        owned_by: manager.tag,
      },
      { id: plain.user_tag, object: 'model', created: seconds(plain.created_at), owned_by: manager.tag },
    ]);
    expect(list.data.map((m) => m.id)).not.toContain(notBot.user_tag);
  });

  it('when a user made themself a bot, then they own their entries', async () => {
    const list = await listModels(reader.token);
    const theirs = list.data.filter((m) => m.id === selfBot.tag || m.id.startsWith(`${selfBot.tag}:`));
    expect(theirs).toEqual([
      { id: selfBot.tag, object: 'model', created: seconds(selfBotCreatedAt), owned_by: selfBot.tag },
      {
        id: `${selfBot.tag}:solo`,
        object: 'model',
        created: seconds(selfBotCreatedAt),
        owned_by: selfBot.tag,
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
      '{ models { object data { id object created owned_by } } }',
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
