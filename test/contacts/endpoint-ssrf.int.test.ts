// Endpoint verification against private targets with SKEIN_WEBHOOK_ALLOW_PRIVATE unset (the
// default): the nonce is never sent to loopback or private addresses, and the answer is 400.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { freshDataDir, startEchoReceiver, type EchoReceiver } from './contact-helpers.js';

let api: TestServer;
let target: EchoReceiver;
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: freshDataDir(), SKEIN_WEBHOOK_ALLOW_PRIVATE: 'false' });
  target = await startEchoReceiver('json');
});
afterAll(async () => {
  await target.close();
  await api.close();
});

describe('POST /v1/auth/contacts/endpoint/verify without private targets', () => {
  it('when the URL points at loopback (by address or by name), then 400 invalid_endpoint and nothing reaches it', async () => {
    const user = await registerUser(api);
    const port = new URL(target.url).port;
    // Only loopback forms: a private-range target is refused by the same check, and this machine must
    // not send a packet toward one should that check ever break.
    const urls = [
      target.url,
      `http://localhost:${port}/hook`,
      `http://[::1]:${port}/hook`,
      `http://0.0.0.0:${port}/hook`,
    ];
    await expectAllRefused(user.token, urls);
  });

  // Security review 2026-11-23 #17: the IPv4-compatible form ::7f00:1 passed the filter and reached
  // connect(). (A user of its own: each URL costs two of the account's hourly challenge requests.)
  it('when the URL is an IPv6 form that embeds 127.0.0.1, then 400 invalid_endpoint and nothing reaches it', async () => {
    const user = await registerUser(api);
    const port = new URL(target.url).port;
    const urls = [
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://[::ffff:7f00:1]:${port}/hook`,
      `http://[::127.0.0.1]:${port}/hook`,
      `http://[64:ff9b::127.0.0.1]:${port}/hook`,
    ];
    await expectAllRefused(user.token, urls);
  });
});

/** Asks for and verifies each URL: every verify is refused, and nothing is stored or sent. */
async function expectAllRefused(token: string, urls: string[]): Promise<void> {
  for (const url of urls) {
    const asked = await api.request('POST', '/v1/auth/contacts/endpoint/request', { token, body: { url } });
    expect({ url, status: asked.status }).toEqual({ url, status: 200 });
    const res = await api.request('POST', '/v1/auth/contacts/endpoint/verify', { token, body: { url } });
    expect({ url, status: res.status, body: res.body }).toEqual({
      url,
      status: 400,
      // The refusal names the setting a developer on a local machine needs (first-hour review 2026-11-28).
      body: { code: 'invalid_endpoint', detail: expect.stringContaining('SKEIN_WEBHOOK_ALLOW_PRIVATE=true') },
    });
  }
  expect(target.requests).toEqual([]);
  const me = await api.request<{ contacts: unknown[] }>('GET', '/v1/users/me', { token });
  expect(me.body.contacts).toEqual([]);
}
