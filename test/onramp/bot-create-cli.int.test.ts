// `npx skein-sdk bot create <tag>` (sdks/typescript/src/cli.ts, issue 53): run as its own process from
// an empty folder, the way a person runs it, against a Skein in this test process. It signs in as the
// person, creates or finds the bot, makes an API key that works and writes .env; run twice, it finds
// the same bot and keeps the key; every refusal exits 1 with what to do, and writes nothing.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readDotEnv } from '../../sdks/typescript/src/dotenv.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import {
  createManaged,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const CLI = path.join(PROJECT_ROOT, 'sdks/typescript/src/cli.ts');
const TSX = path.join(PROJECT_ROOT, 'node_modules/tsx/dist/loader.mjs');
let api: TestServer;
const folders: string[] = [];

beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `skein-sdk bot create …` in `folder` as `user` (SKEIN_USER and SKEIN_PASSWORD). */
function botCreate(
  folder: string,
  user: { tag: string; password: string },
  ...args: string[]
): Promise<CliRun> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    SKEIN_USER: user.tag,
    SKEIN_PASSWORD: user.password,
  };
  delete env.NODE_OPTIONS;
  delete env.SKEIN_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX, CLI, 'bot', 'create', ...args, '--url', api.url],
      { cwd: folder, env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

function emptyFolder(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'skein-bot-create-'));
  folders.push(folder);
  return folder;
}

async function meWithKey(
  key: string,
): Promise<{ status: number; body: { uid?: string; user_tag?: string; code?: string } }> {
  return api.request('GET', '/v1/users/me', { apiKey: key });
}

describe('skein-sdk bot create', () => {
  it('when a person with API access runs it twice, then one bot, and a key in .env that signs it in and is kept', async () => {
    const person = await registerWriter(api, { apiAccess: true });
    const folder = emptyFolder();
    const tag = uniqueTag('bot');

    const first = await botCreate(folder, person, tag);
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain(`Created the bot ${tag}`);
    const written = readDotEnv(path.join(folder, '.env'));
    expect(written.SKEIN_URL).toBe(api.url);
    expect(written.SKEIN_CURSOR_FILE).toBe(`${tag}.cursor`);
    expect(statSync(path.join(folder, '.env')).mode & 0o077).toBe(0);
    const me = await meWithKey(written.SKEIN_API_KEY!);
    expect(me.status).toBe(200);
    expect(me.body.user_tag).toBe(tag);

    const second = await botCreate(folder, person, tag);
    expect(second).toMatchObject({ code: 0 });
    expect(second.stdout).toContain(`Found your bot ${tag}`);
    expect(second.stdout).toContain('still works; kept it');
    expect(readDotEnv(path.join(folder, '.env')).SKEIN_API_KEY).toBe(written.SKEIN_API_KEY);

    // One bot of that tag among the person's managed users.
    const managed = await api.request<{ users: { user_tag: string; is_bot: boolean }[] }>(
      'GET',
      '/v1/managed/users',
      {
        token: await sessionOf(person),
      },
    );
    expect(managed.body.users.filter((user) => user.user_tag === tag)).toEqual([
      expect.objectContaining({ user_tag: tag, is_bot: true }),
    ]);
  });

  it('when .env holds other lines and a dead key, then a new key replaces it and the other lines stay', async () => {
    const person = await registerWriter(api, { apiAccess: true });
    const folder = emptyFolder();
    const tag = uniqueTag('bot');
    writeFileSync(
      path.join(folder, '.env'),
      `OPENAI_API_KEY=keep-me\nSKEIN_URL=${api.url}\nSKEIN_API_KEY=sk_dead_0000\n`,
    );
    const result = await botCreate(folder, person, tag);
    expect(result.code).toBe(0);
    const written = readDotEnv(path.join(folder, '.env'));
    expect(written.OPENAI_API_KEY).toBe('keep-me');
    expect(written.SKEIN_API_KEY).not.toBe('sk_dead_0000');
    expect((await meWithKey(written.SKEIN_API_KEY!)).body.user_tag).toBe(tag);
  });

  it('when the tag belongs to an account the person does not manage, then it exits 1 saying so and writes nothing', async () => {
    const person = await registerWriter(api, { apiAccess: true });
    const other = await registerWriter(api, { apiAccess: true });
    const theirs = await createManaged(api, other.token, { is_bot: true });
    const folder = emptyFolder();
    const result = await botCreate(folder, person, theirs.user_tag);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The tag "${theirs.user_tag}" belongs to an account you do not manage`);
    expect(existsSync(path.join(folder, '.env'))).toBe(false);
  });

  it('when the person may not write yet, then it exits 1 naming the missing scope and how to get it', async () => {
    const newcomer = await registerUser(api);
    const folder = emptyFolder();
    const result = await botCreate(folder, newcomer, uniqueTag('bot'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('messages.write is missing');
    expect(result.stderr).toMatch(/verify an email/i);
    expect(existsSync(path.join(folder, '.env'))).toBe(false);
  });

  it('when the person has no API access, then it exits 1 naming the grant, leaves the bot no live key, and writes nothing', async () => {
    const person = await registerWriter(api, { apiAccess: false });
    const folder = emptyFolder();
    const tag = uniqueTag('bot');
    const result = await botCreate(folder, person, tag);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('has no API access');
    expect(result.stderr).toContain(`npm run admin -- api-access ${person.tag} on`);
    expect(existsSync(path.join(folder, '.env'))).toBe(false);
    // The bot was made (a second run after the grant finds it) and holds no live key.
    const token = await sessionOf(person);
    const managed = await api.request<{ users: { uid: string; user_tag: string }[] }>(
      'GET',
      '/v1/managed/users',
      { token },
    );
    const bot = managed.body.users.find((user) => user.user_tag === tag);
    expect(bot).toBeDefined();
    const asBot = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token,
      body: { managed_uid: bot!.uid },
    });
    const keys = await api.request<{ keys: { revoked: boolean }[] }>('GET', '/v1/auth/keys', {
      token: asBot.body.access_token,
    });
    expect(keys.body.keys.filter((key) => !key.revoked)).toEqual([]);
  });

  it('when the password is wrong, then it exits 1 saying the sign-in was refused', async () => {
    const person = await registerWriter(api, { apiAccess: true });
    const result = await botCreate(
      emptyFolder(),
      { tag: person.tag, password: 'not-the-password-at-all' },
      uniqueTag('bot'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused the sign-in');
  });

  it('when Skein does not answer, then it exits 1 asking whether it runs', async () => {
    const folder = emptyFolder();
    const env: Record<string, string | undefined> = {
      ...process.env,
      SKEIN_USER: 'ada',
      SKEIN_PASSWORD: 'whatever-it-is',
    };
    delete env.NODE_OPTIONS;
    const result = await new Promise<CliRun>((resolve) =>
      execFile(
        process.execPath,
        ['--import', TSX, CLI, 'bot', 'create', 'echobot', '--url', 'http://127.0.0.1:9'],
        { cwd: folder, env },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot reach Skein at http://127.0.0.1:9');
    expect(result.stderr).toContain('is it running');
  });
});

async function sessionOf(user: TestUser): Promise<string> {
  const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  return login.body.access_token;
}
