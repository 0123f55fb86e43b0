// What strangers can write without signing in must not empty the caches everyone's reads rely on
// (security review 2026-11-28 #7): asking for a sign-in or reset code, for a known email or an
// unknown one, trying a wrong code or password, and registering leave the view cache
// (src/platform/http/view-cache.ts) and the session cache (src/components/identity/session-cache.ts)
// as they were. And a wrong code costs the same statements whether the email is known or not (the
// review's Informational paragraph).
//
// How the caches are watched, through the API only:
// - the view cache as test/platform/view-cache.int.test.ts does: the second read of a URL moves
//   skein_view_cache_lookups_total{outcome="hit"}, and so must the read after the anonymous writes
//   (each test keeps a new message's answer, so what it reads was stored by that test);
// - the session cache with a probe session whose record is kept, then revoked in Neo4j behind the
//   cache's back (straight through the driver, so no commit listener hears of it): while its record
//   is kept it still signs in; once the cache is emptied it is read again, and refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Token } from '../support/api-types.js';
import {
  STRONG_PASSWORD,
  grant,
  postMessage,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';
import {
  freshDataDir,
  latestCode,
  outboxLines,
  uniqueEmail,
  verifyEmail,
  type ChallengeBody,
} from './contact-helpers.js';

const METRICS_TOKEN = 'anonymous-writes-metrics-token-0123';
const HIT_SERIES = /^skein_view_cache_lookups_total\{[^}]*outcome="hit"[^}]*\} (\S+)$/m;

let api: TestServer;
const dataDir = freshDataDir();
/** A writer whose kept view the anonymous traffic must leave alone. */
let reader: TestUser;
/** An account with a verified email, as the strangers' target. */
let known: TestUser & { email: string };

beforeAll(async () => {
  api = await startTestServer({
    SKEIN_DATA_DIR: dataDir,
    SKEIN_METRICS_TOKEN: METRICS_TOKEN,
    // The tests ask for codes for the same email several times; the limits have tests of their own.
    SKEIN_VERIFICATION_REQUESTS_PER_HOUR: '1000',
    SKEIN_CODE_FAILURES_PER_15_MIN: '1000',
  });
  // Made before anything is kept (verifying an email changes a grant, which empties both caches).
  reader = await registerWriter(api);
  const email = uniqueEmail('known');
  const user = await registerUser(api);
  await verifyEmail(api, dataDir, user.token, email);
  known = { ...user, email };
  recordStatements();
});
afterAll(async () => {
  await api.close();
});

/** Statements of the event log's and the webhooks' own loops, which run beside any request. */
const BACKGROUND = /^(event-log|webhooks)\//;
let recording: string[] | null = null;

/**
 * Notes, while `recording` is set, every statement the server's Database runs: each read by name,
 * and each committed write transaction as the names of its statements (what its commit listeners,
 * the caches among them, are told). The reads are noted on their way to the real database.
 */
function recordStatements(): void {
  const db = api.ctx.db;
  const read = db.read.bind(db);
  db.read = (name, params) => {
    if (recording && !BACKGROUND.test(name)) recording.push(`read ${name}`);
    return read(name, params);
  };
  db.onCommit(({ statements }) => {
    const names = [...statements].filter((name) => !BACKGROUND.test(name));
    if (recording && names.length > 0) recording.push(`write ${names.join(' + ')}`);
    return Promise.resolve();
  });
}

/** The statements run while `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  recording = seen;
  try {
    await work();
  } finally {
    recording = null;
  }
  return seen;
}

/** How many lookups this server's view cache has answered from what it kept, so far. */
async function hitsNow(): Promise<number> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const match = HIT_SERIES.exec(await res.text());
  return match ? Number(match[1]) : 0;
}

/** Reads `path` as the reader; answers how many view-cache hits that read made (0 or 1). */
async function readView(path: string): Promise<number> {
  const before = await hitsNow();
  const res = await api.request('GET', path, { token: reader.token });
  expect(res.status).toBe(200);
  return (await hitsNow()) - before;
}

async function signIn(user: TestUser): Promise<string> {
  const res = await api.request<Token>('POST', '/v1/auth/password/login', {
    body: { user_tag: user.tag, password: user.password },
  });
  expect(res.status).toBe(200);
  return res.body.access_token;
}

const statusWith = async (token: string) => (await api.request('GET', '/v1/users/me', { token })).status;

/** Ends a session in Neo4j without the service hearing of it (the driver, not the app's Database). */
async function revokeBehindTheCaches(token: string): Promise<void> {
  const session = await api.request<{ session_id: string }>('GET', '/v1/auth/session', { token });
  expect(session.status).toBe(200);
  const { summary } = await api.ctx.db.driver.executeQuery(
    'MATCH (s:Session {id: $id}) SET s.revoked_at = datetime()',
    { id: session.body.session_id },
  );
  expect(summary.counters.updates().propertiesSet).toBe(1);
}

interface Kept {
  /** The URL whose answer the reader has kept. */
  view: string;
  /** A session whose record is kept, and ended in Neo4j since. */
  probe: string;
}

/**
 * Keeps both caches afresh (each keeps an entry TTL_MS, 5 s, from when it was stored): the
 * reader's answer to a message of its own, new so that its first read is a miss that stores it and
 * the second a hit, and a probe session's record, then ended behind the cache's back.
 */
async function keepBoth(): Promise<Kept> {
  const probe = await signIn(reader);
  const message = await postMessage(api, reader.token, { content: 'kept while strangers knock' });
  const view = `/v1/messages/${message.id}`;
  expect({ stored: await readView(view), hit: await readView(view) }).toEqual({ stored: 0, hit: 1 });
  expect(await statusWith(probe)).toBe(200);
  await revokeBehindTheCaches(probe);
  return { view, probe };
}

/** Both caches still hold what keepBoth kept. */
async function expectBothKept({ view, probe }: Kept): Promise<void> {
  expect({ viewHits: await readView(view) }).toEqual({ viewHits: 1 });
  expect({ probeSession: await statusWith(probe) }).toEqual({ probeSession: 200 });
}

/** A request without credentials. */
const stranger = (path: string, body: Record<string, unknown>) => api.request('POST', path, { body });

function expectStatus(res: ApiResponse<unknown>, status: number, code?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status,
    ...(code ? { body: { code } } : {}),
  });
}

const WRONG = '000000';

describe('anonymous writes and the shared caches (security review 2026-11-28 #7)', () => {
  it('when writes that change the reader’s credential and a view commit, then the probe is refused and the view is read afresh: the checks can tell', async () => {
    const kept = await keepBoth();
    // A credential write naming the reader (another account's would leave the reader's records,
    // credential-writes.ts): an administrator sets its API access to what it already is.
    await grant(api, reader.uid, { has_api_access: false });
    expect(await statusWith(kept.probe)).toBe(401);
    await postMessage(api, reader.token, { content: 'a public post changes every view', public: true });
    expect(await readView(kept.view)).toBe(0);
  });

  it('when another account edits its profile, and a manager its bot’s, then the kept view and the kept session stay (security review 2026-12-02 #1)', async () => {
    const editor = await registerWriter(api);
    const bot = await api.request<{ uid: string }>('POST', '/v1/managed/users', {
      token: editor.token,
      body: { user_tag: uniqueTag('bot'), is_bot: true },
    });
    expect(bot.status).toBe(201);
    const kept = await keepBoth();
    const own = await api.request('POST', '/v1/users/profile', {
      token: editor.token,
      body: { display_name: 'Renamed', bio: 'a new bio' },
    });
    expect(own.status).toBe(200);
    const managed = await api.request('PATCH', `/v1/managed/users/${bot.body.uid}`, {
      token: editor.token,
      body: { display_name: 'Bot renamed' },
    });
    expect(managed.status).toBe(200);
    await expectBothKept(kept);
  });

  it('when strangers ask for sign-in codes, for a known email and an unknown one, then the kept view and the kept session stay', async () => {
    const kept = await keepBoth();
    for (const email of [known.email, uniqueEmail('nobody')]) {
      const res = await stranger('/v1/auth/email-code/request', { email });
      expectStatus(res, 200);
      expect((res.body as unknown as ChallengeBody).sent).toBe(true);
    }
    await expectBothKept(kept);
  });

  it('when strangers try wrong sign-in codes, for a known email with a live code and an unknown email, then both caches stay', async () => {
    const withCode = await stranger('/v1/auth/email-code/request', { email: known.email });
    expectStatus(withCode, 200);
    const kept = await keepBoth();
    for (const email of [known.email, uniqueEmail('nobody')]) {
      const res = await stranger('/v1/auth/email-code/login', { email, code: WRONG });
      expectStatus(res, 400, 'invalid_code');
    }
    await expectBothKept(kept);
  });

  it('when strangers ask for password reset codes and try wrong ones, by email and by tag, then both caches stay', async () => {
    const kept = await keepBoth();
    const targets = [{ email: known.email }, { user_tag: known.tag }, { email: uniqueEmail('nobody') }];
    for (const target of targets) {
      expectStatus(await stranger('/v1/auth/password/reset/request', target), 200);
      const wrong = await stranger('/v1/auth/password/reset', {
        ...target,
        code: WRONG,
        new_password: 'a-brand-new-passphrase-9',
      });
      expectStatus(wrong, 400, 'invalid_code');
    }
    await expectBothKept(kept);
  });

  it('when a stranger registers an account, then both caches stay', async () => {
    const kept = await keepBoth();
    const res = await stranger('/v1/auth/register', {
      user_tag: uniqueTag('new'),
      password: STRONG_PASSWORD,
    });
    expectStatus(res, 200);
    await expectBothKept(kept);
  });

  it('when strangers try a wrong password or a made-up token, then both caches stay', async () => {
    const kept = await keepBoth();
    const login = await stranger('/v1/auth/password/login', {
      user_tag: known.tag,
      password: 'not-the-password-1',
    });
    expectStatus(login, 401, 'invalid_credentials');
    const logout = await api.request('POST', '/v1/auth/logout', {
      token: 'svc_session_0123456789abcdef.nope',
    });
    expect(logout.status).toBe(200);
    await expectBothKept(kept);
  });

  it('when the right sign-in code is given, then a session is minted and neither cache is emptied', async () => {
    const owner = await registerUser(api);
    const email = uniqueEmail('owner');
    await verifyEmail(api, dataDir, owner.token, email);
    const before = outboxLines(dataDir).filter((line) => line.to === email).length;
    expectStatus(await stranger('/v1/auth/email-code/request', { email }), 200);
    const code = await latestCode(dataDir, email, before + 1);
    const kept = await keepBoth();
    const res = await api.request<Token>('POST', '/v1/auth/email-code/login', { body: { email, code } });
    expect(res.status).toBe(200);
    expect(await statusWith(res.body.access_token)).toBe(200);
    await expectBothKept(kept);
  });
});

describe('the cost of a wrong code (security review 2026-11-28, Informational)', () => {
  /** What every refused code runs: one read of the accounts, one write transaction. */
  const REFUSAL = [
    'read contacts/find-reset-candidates',
    'write contacts/lock-challenge + contacts/count-wrong-try',
  ];

  it('when wrong sign-in codes are tried for a known email with a live code, one without, and an unknown email, then each runs the same statements', async () => {
    const withoutCode = await registerUser(api);
    const quietEmail = uniqueEmail('quiet');
    await verifyEmail(api, dataDir, withoutCode.token, quietEmail);
    expectStatus(await stranger('/v1/auth/email-code/request', { email: known.email }), 200);

    const runs: Record<string, string[]> = {};
    for (const [name, email] of [
      ['known, live code', known.email],
      ['known, no code', quietEmail],
      ['unknown', uniqueEmail('nobody')],
    ] as const) {
      runs[name] = await statementsOf(async () => {
        const res = await stranger('/v1/auth/email-code/login', { email, code: WRONG });
        expectStatus(res, 400, 'invalid_code');
      });
    }
    expect(runs).toEqual({ 'known, live code': REFUSAL, 'known, no code': REFUSAL, unknown: REFUSAL });
  });

  it('when wrong reset codes are tried for a known account and unknown ones, by tag and by email, then each runs the same statements', async () => {
    expectStatus(await stranger('/v1/auth/password/reset/request', { user_tag: known.tag }), 200);
    const runs: Record<string, string[]> = {};
    for (const [name, target] of [
      ['known tag', { user_tag: known.tag }],
      ['known email', { email: known.email }],
      ['unknown tag', { user_tag: 'nobody-at-all-here' }],
      ['unknown email', { email: uniqueEmail('nobody') }],
    ] as const) {
      runs[name] = await statementsOf(async () => {
        const res = await stranger('/v1/auth/password/reset', {
          ...target,
          code: WRONG,
          new_password: 'a-brand-new-passphrase-9',
        });
        expectStatus(res, 400, 'invalid_code');
      });
    }
    expect(runs).toEqual({
      'known tag': REFUSAL,
      'known email': REFUSAL,
      'unknown tag': REFUSAL,
      'unknown email': REFUSAL,
    });
  });
});
