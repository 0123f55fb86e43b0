// Security review 2026-12-02, #5 (issue 50, item 6): a bot's `context_origin_id` names a message
// that is often private to the bot, so UserOutput shows it only to the bot itself and its managers;
// anyone else is shown `context_origin_id: null` in the same shape (managed-user-policy.ts,
// mayKnowContextOrigin). Checked where the review found it (GET /v1/users/by-tag/{tag}, GET
// /v1/users/search, the reactions listing, GraphQL userByTag) and in the other places a UserOutput
// of someone else is shown (GraphQL searchUsers, reactions and Message.author, pending
// invitations, an administrator's edit), each for a stranger, a manager and the bot itself.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createManaged,
  loginAdmin,
  postMessage,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface BotMetadata {
  modalities: string[];
  integrations: string[];
  versions: string[];
  context_origin_id: string | null;
}

interface User {
  uid: string;
  user_tag: string;
  bot: BotMetadata | null;
  [field: string]: unknown;
}

const USER =
  'uid user_tag display_name bio is_managed is_bot has_api_access created_at deactivated_at bot { modalities integrations versions context_origin_id }';

let api: TestServer;
let manager: TestUser, stranger: TestUser;
let bot: { uid: string; user_tag: string; token: string };
let origin: string, reacted: string, botsMessage: string;

beforeAll(async () => {
  api = await startTestServer();
  [manager, stranger] = await Promise.all([registerWriter(api, { apiAccess: true }), registerWriter(api)]);
  // The stranger manages a bot of its own: managing some bot is not managing this one.
  await createManaged(api, stranger.token, { is_bot: true });
  const created = await createManaged(api, manager.token, {
    is_bot: true,
    bot: { modalities: ['text'], versions: ['1'] },
  });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: created.uid },
  });
  expect(delegated.status).toBe(200);
  bot = { ...created, token: delegated.body.access_token };
  // The origin is private to the bot: the stranger may not read it.
  origin = (await postMessage(api, manager.token, { content: 'you are terse', recipients: [bot.user_tag] }))
    .id;
  const set = await api.request('PATCH', `/v1/managed/users/${bot.uid}`, {
    token: manager.token,
    body: { bot: { context_origin_id: origin } },
  });
  expect(set.status).toBe(200);
  expect((await api.request('GET', `/v1/messages/${origin}`, { token: stranger.token })).status).toBe(404);
  // A public message the bot reacted to, and one it wrote: everyone may list them.
  reacted = (await postMessage(api, manager.token, { content: 'react to me', public: true })).id;
  const reaction = await api.request('PUT', `/v1/messages/${reacted}/reactions/${encodeURIComponent('👍')}`, {
    token: bot.token,
  });
  expect(reaction.status).toBe(200);
  botsMessage = (await postMessage(api, bot.token, { content: 'the bot speaks', public: true })).id;
});
afterAll(async () => {
  await api.close();
});

/** The bot as `token` is shown it in each place, by place. */
async function botSeenBy(token: string): Promise<Record<string, User | undefined>> {
  const byTag = await api.request<User>('GET', `/v1/users/by-tag/${bot.user_tag}`, { token });
  const search = await api.request<{ users: User[] }>('GET', `/v1/users/search?q=${bot.user_tag}`, { token });
  const reactions = await api.request<{ reactions: { users: User[] }[] }>(
    'GET',
    `/v1/messages/${reacted}/reactions`,
    { token },
  );
  for (const res of [byTag, search, reactions]) expect(res.status).toBe(200);
  const graph = await api.graphql<{
    userByTag: User;
    searchUsers: User[];
    reactions: { reactions: { users: User[] }[] };
    message: { author: User };
  }>(
    `query ($tag: String!, $reacted: String!, $written: String!) {
      userByTag(user_tag: $tag) { ${USER} }
      searchUsers(q: $tag) { ${USER} }
      reactions(message_id: $reacted) { reactions { users { ${USER} } } }
      message(message_id: $written) { author { ${USER} } }
    }`,
    { tag: bot.user_tag, reacted, written: botsMessage },
    { token },
  );
  expect(graph.body.errors).toBeUndefined();
  const data = graph.body.data!;
  const theBot = (users: User[]) => users.find((user) => user.uid === bot.uid);
  return {
    'GET /v1/users/by-tag': byTag.body,
    'GET /v1/users/search': theBot(search.body.users),
    'GET /v1/messages/{id}/reactions': theBot(reactions.body.reactions.flatMap((r) => r.users)),
    'GraphQL userByTag': data.userByTag,
    'GraphQL searchUsers': theBot(data.searchUsers),
    'GraphQL reactions': theBot(data.reactions.reactions.flatMap((r) => r.users)),
    'GraphQL Message.author': data.message.author,
  };
}

const originsIn = (seen: Record<string, User | undefined>) =>
  Object.fromEntries(Object.entries(seen).map(([place, user]) => [place, user?.bot?.context_origin_id]));

const everywhere = (value: string | null) =>
  Object.fromEntries(
    [
      'GET /v1/users/by-tag',
      'GET /v1/users/search',
      'GET /v1/messages/{id}/reactions',
      'GraphQL userByTag',
      'GraphQL searchUsers',
      'GraphQL reactions',
      'GraphQL Message.author',
    ].map((place) => [place, value]),
  );

describe("a bot's context_origin_id in someone else's UserOutput", () => {
  it('when a stranger looks the bot up, then context_origin_id is null everywhere, and the rest is shown as to a manager', async () => {
    const seen = await botSeenBy(stranger.token);
    expect(originsIn(seen)).toEqual(everywhere(null));
    const managers = await botSeenBy(manager.token);
    for (const [place, user] of Object.entries(seen)) {
      const asManager = managers[place]!;
      expect([place, user]).toEqual([
        place,
        { ...asManager, bot: { ...asManager.bot!, context_origin_id: null } },
      ]);
    }
    expect(seen['GET /v1/users/by-tag']!.bot).toEqual({
      modalities: ['text'],
      integrations: [],
      versions: ['1'],
      context_origin_id: null,
    });
  });

  it('when its manager looks it up, then context_origin_id is shown everywhere', async () => {
    expect(originsIn(await botSeenBy(manager.token))).toEqual(everywhere(origin));
  });

  it('when the bot looks itself up, then context_origin_id is shown everywhere, and in /v1/users/me', async () => {
    expect(originsIn(await botSeenBy(bot.token))).toEqual(everywhere(origin));
    const me = await api.request<User>('GET', '/v1/users/me', { token: bot.token });
    expect(me.body.bot?.context_origin_id).toBe(origin);
  });

  it('when a user is invited to manage the bot, then it is shown null until it accepts, and the origin once it manages', async () => {
    const colleague = await registerWriter(api);
    const invited = await api.request('POST', `/v1/managed/users/${bot.uid}/managers`, {
      token: manager.token,
      body: { uid: colleague.uid },
    });
    expect(invited.status).toBe(200);
    const invitations = await api.request<{ invitations: { user: User }[] }>(
      'GET',
      '/v1/managed/invitations',
      {
        token: colleague.token,
      },
    );
    expect(invitations.body.invitations.map((i) => i.user.bot?.context_origin_id)).toEqual([null]);
    expect(originsIn(await botSeenBy(colleague.token))).toEqual(everywhere(null));

    const accepted = await api.request('POST', `/v1/managed/invitations/${bot.uid}/accept`, {
      token: colleague.token,
    });
    expect(accepted.status).toBe(200);
    expect(originsIn(await botSeenBy(colleague.token))).toEqual(everywhere(origin));
    const removed = await api.request('DELETE', `/v1/managed/users/${bot.uid}/managers/${colleague.uid}`, {
      token: manager.token,
    });
    expect(removed.status).toBe(200);
    expect(originsIn(await botSeenBy(colleague.token))).toEqual(everywhere(null));
  });

  it('when an administrator who does not manage the bot edits its grant, then the answer shows null', async () => {
    const res = await api.request<User>('PATCH', `/v1/admin/users/${bot.uid}`, {
      token: await loginAdmin(api),
      body: { has_api_access: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.bot?.context_origin_id).toBeNull();
  });

  it('when the manager edits or lists the bot, then its answers show the origin', async () => {
    const edited = await api.request<User>('PATCH', `/v1/managed/users/${bot.uid}`, {
      token: manager.token,
      body: { display_name: 'Terse Bot' },
    });
    expect(edited.body.bot?.context_origin_id).toBe(origin);
    const listed = await api.request<{ users: User[] }>('GET', '/v1/managed/users', { token: manager.token });
    expect(listed.body.users.find((user) => user.uid === bot.uid)?.bot?.context_origin_id).toBe(origin);
  });
});
