// The self-hosting on-ramp: `npm run admin` (src/admin-cli.ts, run as its own process against the
// run's Neo4j), SKEIN_DEFAULT_API_ACCESS, and the 403s that name their fix.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createManaged, registerUser, registerWriter, uniqueTag } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);

let api: TestServer;
let openApi: TestServer;
beforeAll(async () => {
  [api, openApi] = await Promise.all([
    startTestServer(),
    startTestServer({ SKEIN_DEFAULT_API_ACCESS: 'true' }),
  ]);
});
afterAll(async () => {
  await Promise.all([api?.close(), openApi?.close()]);
});

/** Runs `npm run admin -- …` the way an operator does, with the service's Neo4j settings. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    NEO4J_URI: process.env.SKEIN_TEST_NEO4J_URI,
    NEO4J_PASSWORD: process.env.SKEIN_TEST_NEO4J_PASSWORD,
    PUBLIC_URL: api.url,
  };
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args], {
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run admin -- create-bot', () => {
  it('when an operator creates a bot for a user, then the printed key exchanges for a session that can post', async () => {
    const owner = await registerWriter(api);
    const botTag = uniqueTag('bot');
    const result = await admin('create-bot', owner.tag, botTag, 'Echo', 'bot');
    expect(result.code).toBe(0);
    const key = /(sk_\S+)/.exec(result.stdout)?.[1];
    expect(key).toBeDefined();

    const token = await api.request<{ access_token: string }>('POST', '/v1/auth/token', { apiKey: key });
    expect(token.status).toBe(200);
    const posted = await api.request<{ ok: boolean }[]>('POST', '/v1/messages', {
      token: token.body.access_token,
      body: { content: 'hello from the bot', recipients: [owner.tag] },
    });
    expect(posted.status).toBe(200);
    expect(posted.body[0]!.ok).toBe(true);
    // The owner manages it.
    const managed = await api.request<{ users: { user_tag: string; is_bot: boolean }[] }>(
      'GET',
      '/v1/managed/users',
      { token: owner.token },
    );
    expect(managed.body.users).toEqual([expect.objectContaining({ user_tag: botTag, is_bot: true })]);
  }, 60_000);

  it('when the manager has not verified an email, then the bot cannot write yet and the command says how to fix it', async () => {
    const owner = await registerUser(api);
    const result = await admin('create-bot', owner.tag, uniqueTag('bot'));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`@${owner.tag} lacks messages.write realtime.connect`);
    expect(result.stdout).toContain(`npm run admin -- grant ${owner.tag} messages.write realtime.connect`);
    const key = /(sk_\S+)/.exec(result.stdout)![1]!;
    const token = await api.request<{ access_token: string }>('POST', '/v1/auth/token', { apiKey: key });
    expect(token.status).toBe(200);
    const refused = await api.request('POST', '/v1/messages', {
      token: token.body.access_token,
      body: { content: 'not yet', recipients: [owner.tag] },
    });
    expect(refused.status).toBe(403);

    expect((await admin('grant', owner.tag, 'messages.write', 'realtime.connect')).code).toBe(0);
    // As after any grant, a session minted after it holds the new scopes.
    const again = await api.request<{ access_token: string }>('POST', '/v1/auth/token', { apiKey: key });
    const posted = await api.request('POST', '/v1/messages', {
      token: again.body.access_token,
      body: { content: 'now', recipients: [owner.tag] },
    });
    expect(posted.status).toBe(200);
  }, 60_000);

  it('when the manager tag is unknown, then it fails with a message and creates nothing', async () => {
    const result = await admin('create-bot', uniqueTag('nobody'), uniqueTag('bot'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No such user');
  }, 60_000);
});

describe('npm run admin -- grant and api-access', () => {
  it('when an operator grants channels.create, then the user can create a channel', async () => {
    const user = await registerUser(api);
    const before = await api.request('POST', '/v1/channels', {
      token: user.token,
      body: { display_name: 'general' },
    });
    expect(before.status).toBe(403);
    expect((before.body as { detail: string }).detail).toContain('npm run admin -- grant');
    const result = await admin('grant', user.tag, 'channels.create', 'messages.write');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('channels.create');
    // Like an admin's PATCH, the grant reaches sessions signed in after it.
    const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: user.password },
    });
    const after = await api.request('POST', '/v1/channels', {
      token: login.body.access_token,
      body: { display_name: 'general' },
    });
    expect(after.body).toEqual(expect.objectContaining({ display_name: 'general' }));
    expect(after.status).toBe(201);
  }, 60_000);

  it('when an operator turns on API access for a user, then the bots made before it get it too', async () => {
    const owner = await registerWriter(api);
    const bot = await createManaged(api, owner.token, { is_bot: true });
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: owner.token,
      body: { managed_uid: bot.uid },
    });
    const key = await api.request<{ key: string }>('POST', '/v1/auth/keys/self', {
      token: delegated.body.access_token,
      body: { label: 'bot' },
    });
    const refused = await api.request<{ detail: string }>('POST', '/v1/auth/token', { apiKey: key.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('npm run admin -- api-access');

    const result = await admin('api-access', owner.tag, 'on');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(bot.user_tag);
    const accepted = await api.request('POST', '/v1/auth/token', { apiKey: key.body.key });
    expect(accepted.status).toBe(200);
  }, 60_000);

  it('when the command is unknown, then it prints the usage and exits 2', async () => {
    const result = await admin('frobnicate');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run admin');
  }, 60_000);
});

describe('SKEIN_DEFAULT_API_ACCESS', () => {
  it('when it is true, then a new account has API access; by default it has not', async () => {
    const open = await registerUser(openApi);
    const closed = await registerUser(api);
    const openMe = await openApi.request<{ has_api_access: boolean }>('GET', '/v1/users/me', {
      token: open.token,
    });
    const closedMe = await api.request<{ has_api_access: boolean }>('GET', '/v1/users/me', {
      token: closed.token,
    });
    expect(openMe.body.has_api_access).toBe(true);
    expect(closedMe.body.has_api_access).toBe(false);
  });
});

describe('403 insufficient_scope for messages.write', () => {
  it('when an unverified user posts, then the error says how to get the scope (verify an email, the outbox file)', async () => {
    const user = await registerUser(api);
    const res = await api.request<{ code: string; detail: string }>('POST', '/v1/messages', {
      token: user.token,
      body: { content: 'hi' },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.body.detail).toContain('/v1/auth/contacts/email/request');
    expect(res.body.detail).toContain('outbox.jsonl');
  });
});
