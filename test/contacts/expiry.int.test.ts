// Code and challenge expiry, with SKEIN_CODE_TTL_SECONDS=1: once expires_at has passed, the right
// code (or the endpoint echo) no longer verifies anything.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  freshDataDir,
  latestCode,
  outboxLines,
  startEchoReceiver,
  uniqueEmail,
  verifyEmail,
  type ChallengeBody,
  type EchoReceiver,
} from './contact-helpers.js';

let api: TestServer;
let target: EchoReceiver;
const dataDir = freshDataDir();
beforeAll(async () => {
  api = await startTestServer({
    SKEIN_DATA_DIR: dataDir,
    SKEIN_CODE_TTL_SECONDS: '1',
    SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  target = await startEchoReceiver('json');
});
afterAll(async () => {
  await target.close();
  await api.close();
});

/** Waits until `expiresAt` is in the past. */
async function outlive(expiresAt: string): Promise<void> {
  const wait = Date.parse(expiresAt) - Date.now() + 100;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

describe('expired challenges', () => {
  it('when an email code has expired, then the right code answers 404 no_active_challenge', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const asked = await api.request<ChallengeBody>('POST', '/v1/auth/contacts/email/request', {
      token: user.token,
      body: { email },
    });
    expect(asked.status).toBe(200);
    expect(Date.parse(asked.body.expires_at) - Date.now()).toBeLessThanOrEqual(1000);
    const code = await latestCode(dataDir, email);
    await outlive(asked.body.expires_at);
    const res = await api.request('POST', '/v1/auth/contacts/email/verify', {
      token: user.token,
      body: { email, code },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'no_active_challenge', detail: expect.any(String) });
  });

  it('when a reset code has expired, then the reset answers 400 invalid_code', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    // Verification itself must beat the one-second lifetime: retry if the machine is slow.
    for (let attempt = 0; ; attempt++) {
      try {
        await verifyEmail(api, dataDir, user.token, email);
        break;
      } catch (error) {
        if (attempt >= 4) throw error;
      }
    }
    const before = outboxLines(dataDir).filter((line) => line.to === email).length;
    const asked = await api.request<ChallengeBody>('POST', '/v1/auth/password/reset/request', {
      body: { email },
    });
    expect(asked.status).toBe(200);
    const code = await latestCode(dataDir, email, before + 1);
    await outlive(asked.body.expires_at);
    const res = await api.request('POST', '/v1/auth/password/reset', {
      body: { email, code, new_password: 'a-brand-new-passphrase-77' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_code', detail: expect.any(String) });
    expect((await api.request('GET', '/v1/users/me', { token: user.token })).status).toBe(200);
  });

  it('when an endpoint challenge has expired, then 404 and the endpoint is not called', async () => {
    const user = await registerUser(api);
    const asked = await api.request<ChallengeBody>('POST', '/v1/auth/contacts/endpoint/request', {
      token: user.token,
      body: { url: target.url },
    });
    expect(asked.status).toBe(200);
    await outlive(asked.body.expires_at);
    const res = await api.request('POST', '/v1/auth/contacts/endpoint/verify', {
      token: user.token,
      body: { url: target.url },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'no_active_challenge', detail: expect.any(String) });
    expect(target.requests).toEqual([]);
  });
});
