// Sign-in by email code when several accounts verified one email (behaviour checks of 2026-11-28):
// POST /v1/auth/email-code/request answers 409 ambiguous_email saying to give user_tag, so both
// email-code bodies take `user_tag` (as the password reset's do) and the tagged account gets its
// code. What a stranger learns stays the same: an email and tag that name no account that verified
// that email answer exactly like an unknown email, and nothing is sent.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  freshDataDir,
  latestCode,
  outboxLines,
  uniqueEmail,
  verifyEmail,
  type ChallengeBody,
} from '../contacts/contact-helpers.js';
import type { Token } from '../support/api-types.js';
import { registerUser, uniqueTag, type TestUser } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

let api: TestServer;
const dataDir = freshDataDir();
/** Two accounts that verified the same email, and one that verified another. */
let shared: string;
let ada: TestUser;
let bea: TestUser;
let other: TestUser & { email: string };
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
  shared = uniqueEmail('shared');
  [ada, bea] = [await registerUser(api), await registerUser(api)];
  await verifyEmail(api, dataDir, ada.token, shared);
  await verifyEmail(api, dataDir, bea.token, shared);
  const email = uniqueEmail('other');
  const user = await registerUser(api);
  await verifyEmail(api, dataDir, user.token, email);
  other = { ...user, email };
});
afterAll(async () => {
  await api.close();
});

const askCode = (body: Record<string, unknown>) =>
  api.request<ChallengeBody>('POST', '/v1/auth/email-code/request', { body });
const logIn = (body: Record<string, unknown>) =>
  api.request<Token>('POST', '/v1/auth/email-code/login', { body });
const mailsTo = (to: string) => outboxLines(dataDir).filter((line) => line.to === to).length;

/** Waits a moment for a mail that should not come, then says how many went to `to`. */
async function mailsAfterPause(to: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  return mailsTo(to);
}

async function uidOf(token: string): Promise<string> {
  const res = await api.request<{ uid: string }>('GET', '/v1/auth/session', { token });
  expect(res.status).toBe(200);
  return res.body.uid;
}

function expectChallenge(res: ApiResponse<ChallengeBody>): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 200,
    body: { challenge_id: expect.any(String), expires_at: expect.any(String), sent: true },
  });
}

const INVALID_CODE = { code: 'invalid_code', detail: 'The code is wrong or no longer valid.' };

describe('POST /v1/auth/email-code/request and /login when several accounts verified the email', () => {
  it('when asked without user_tag, then 409 ambiguous_email says to give user_tag, and the body takes it', async () => {
    const asked = await askCode({ email: shared });
    expect(asked.status).toBe(409);
    const { code, detail } = asked.body as unknown as { code: string; detail: string };
    expect(code).toBe('ambiguous_email');
    expect(detail).toContain('user_tag');

    // The advice is followed: the same body with user_tag is accepted, not a 422 unrecognized key.
    const before = mailsTo(shared);
    const advised = await askCode({ email: shared, user_tag: bea.tag });
    expectChallenge(advised);
    // The code is mailed after the answer: it arrives (and later tests count from after it).
    await latestCode(dataDir, shared, before + 1);
  });

  it('when asked with user_tag, then the code goes to the shared email and signs in only that account', async () => {
    const before = mailsTo(shared);
    expectChallenge(await askCode({ email: shared, user_tag: `@${ada.tag.toUpperCase()}` }));
    const code = await latestCode(dataDir, shared, before + 1);

    const withoutTag = await logIn({ email: shared, code });
    expect({
      status: withoutTag.status,
      code: (withoutTag.body as unknown as { code: string }).code,
    }).toEqual({
      status: 409,
      code: 'ambiguous_email',
    });
    const wrongAccount = await logIn({ email: shared, user_tag: bea.tag, code });
    expect({ status: wrongAccount.status, body: wrongAccount.body }).toEqual({
      status: 400,
      body: INVALID_CODE,
    });

    const res = await logIn({ email: shared, user_tag: ada.tag, code });
    expect(res.status).toBe(200);
    expect(await uidOf(res.body.access_token)).toBe(ada.uid);
  });

  it('when the tag names no account, or one that did not verify the email, then the answers of an unknown email and nothing is sent', async () => {
    const before = mailsTo(shared);
    const otherBefore = mailsTo(other.email);
    for (const body of [
      { email: shared, user_tag: uniqueTag('nobody') },
      { email: shared, user_tag: other.tag },
      { email: uniqueEmail('nobody'), user_tag: ada.tag },
    ]) {
      expectChallenge(await askCode(body));
      const login = await logIn({ ...body, code: '123456' });
      expect({ body, status: login.status, answer: login.body }).toEqual({
        body,
        status: 400,
        answer: INVALID_CODE,
      });
    }
    expect(await mailsAfterPause(shared)).toBe(before);
    expect(mailsTo(other.email)).toBe(otherBefore);
  });

  it('when a body carries a key it does not know, then still 422 validation_error', async () => {
    const res = await askCode({ email: shared, user_tag: ada.tag, uid: ada.uid });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_error' });
  });

  it('when asked and signed in through GraphQL with user_tag, then the tagged account is signed in', async () => {
    const before = mailsTo(shared);
    const asked = await api.graphql<{ requestEmailCode: { sent: boolean } }>(
      'mutation($input: EmailCodeRequestInput!) { requestEmailCode(input: $input) { sent } }',
      { input: { email: shared, user_tag: bea.tag } },
    );
    expect(asked.body.errors).toBeUndefined();
    const code = await latestCode(dataDir, shared, before + 1);
    const login = await api.graphql<{ loginWithEmailCode: { access_token: string } }>(
      'mutation($input: EmailCodeLoginInput!) { loginWithEmailCode(input: $input) { access_token } }',
      { input: { email: shared, user_tag: bea.tag, code } },
    );
    expect(login.body.errors).toBeUndefined();
    expect(await uidOf(login.body.data!.loginWithEmailCode.access_token)).toBe(bea.uid);
  });

  it('when the OpenAPI document is read, then both bodies list user_tag and the 409s say to add it', async () => {
    const doc = await api.request<{
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>('GET', '/v1/openapi.json');
    for (const name of ['EmailCodeRequest', 'EmailCodeLoginRequest'])
      expect(Object.keys(doc.body.components.schemas[name]!.properties)).toContain('user_tag');
    for (const path of ['/v1/auth/email-code/request', '/v1/auth/email-code/login'])
      expect(doc.body.paths[path]!.post!.responses['409']!.description).toContain('user_tag');
  });
});
