// Endpoint verification: POST /v1/auth/contacts/endpoint/request and .../verify, over REST and
// GraphQL. The echo receivers run on loopback, so this server allows private targets
// (SKEIN_WEBHOOK_ALLOW_PRIVATE=true); the refusal is tested in endpoint-ssrf.int.test.ts.
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Token } from '../support/api-types.js';
import { createManaged, registerUser, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import {
  freshDataDir,
  startEchoReceiver,
  type ChallengeBody,
  type EchoBehaviour,
  type EchoReceiver,
  type VerificationBody,
} from './contact-helpers.js';

let api: TestServer;
const receivers: EchoReceiver[] = [];
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: freshDataDir(), SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await api.close();
});

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

async function receiver(behaviour: EchoBehaviour): Promise<EchoReceiver> {
  const started = await startEchoReceiver(behaviour);
  receivers.push(started);
  return started;
}

const requestEndpoint = (token: string, url: string) =>
  api.request<ChallengeBody>('POST', '/v1/auth/contacts/endpoint/request', { token, body: { url } });
const verifyEndpoint = (token: string, url: string) =>
  api.request<VerificationBody>('POST', '/v1/auth/contacts/endpoint/verify', { token, body: { url } });

interface Me {
  contacts: Record<string, unknown>[];
}
const contactsOf = async (token: string) =>
  (await api.request<Me>('GET', '/v1/users/me', { token })).body.contacts;

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('POST /v1/auth/contacts/endpoint/request', () => {
  it('when the URL is good, then a ChallengeResponse and nothing is sent to the endpoint yet', async () => {
    const user = await registerUser(api);
    const target = await receiver('json');
    const res = await requestEndpoint(user.token, target.url);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      expires_at: expect.any(String),
      sent: true,
    });
    expect(target.requests).toEqual([]);
  });

  it('when the URL is not an http(s) URL with a host and no credentials, then 400 invalid_endpoint', async () => {
    const user = await registerUser(api);
    for (const url of [
      'not a url',
      'ftp://example.com/hook',
      'http://user:pw@example.com/hook',
      'javascript:alert(1)',
    ]) {
      const res = await requestEndpoint(user.token, url);
      expect({ url, status: res.status, body: res.body }).toEqual({
        url,
        status: 400,
        body: { code: 'invalid_endpoint', detail: expect.any(String) },
      });
    }
    const verify = await verifyEndpoint(user.token, 'ftp://example.com/hook');
    expect(verify.status).toBe(400);
    expect(verify.body).toEqual({ code: 'invalid_endpoint', detail: expect.any(String) });
  });

  it('when the URL is missing, then 400 missing_field; when unauthenticated, then 401', async () => {
    const user = await registerUser(api);
    const missing = await api.request('POST', '/v1/auth/contacts/endpoint/request', {
      token: user.token,
      body: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 'missing_field', detail: expect.any(String) });
    const missingVerify = await api.request('POST', '/v1/auth/contacts/endpoint/verify', {
      token: user.token,
      body: {},
    });
    expect(missingVerify.status).toBe(400);
    const anonymous = await api.request('POST', '/v1/auth/contacts/endpoint/request', {
      body: { url: 'https://example.com/hook' },
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('POST /v1/auth/contacts/endpoint/verify', () => {
  it('when the endpoint echoes the JSON POST, then verified with a whsec_ secret shown once', async () => {
    const user = await registerUser(api);
    const target = await receiver('json');
    expect((await requestEndpoint(user.token, target.url)).status).toBe(200);
    const res = await verifyEndpoint(user.token, target.url);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      verified: true,
      kind: 'endpoint',
      value: target.url,
      secret: expect.stringMatching(SECRET),
    });
    expect(Buffer.from(res.body.secret!.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]).toMatchObject({ method: 'POST', contentType: 'application/json' });
    expect(Object.keys(JSON.parse(target.requests[0]!.body) as object)).toEqual(['nonce']);

    const contacts = await contactsOf(user.token);
    expect(contacts).toEqual([{ kind: 'endpoint', value: target.url, verified_at: expect.any(String) }]);
    expect(JSON.stringify(contacts)).not.toContain('whsec_');
  });

  it('when the endpoint only echoes a text POST, then the JSON POST is tried first and the text POST proves it', async () => {
    const user = await registerUser(api);
    const target = await receiver('text');
    await requestEndpoint(user.token, target.url);
    const res = await verifyEndpoint(user.token, target.url);
    expect(res.status).toBe(200);
    expect(target.requests.map((r) => `${r.method} ${r.contentType}`)).toEqual([
      'POST application/json',
      'POST text/plain; charset=utf-8',
    ]);
  });

  it('when the endpoint only echoes a GET, then JSON POST, text POST and GET ?nonce= are tried in that order', async () => {
    const user = await registerUser(api);
    const target = await receiver('get');
    await requestEndpoint(user.token, target.url);
    const res = await verifyEndpoint(user.token, target.url);
    expect(res.status).toBe(200);
    expect(target.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'GET']);
    const nonce = (JSON.parse(target.requests[0]!.body) as { nonce: string }).nonce;
    expect(target.requests[1]!.body).toBe(nonce);
    expect(new URL(target.requests[2]!.url, 'http://x').searchParams.get('nonce')).toBe(nonce);
  });

  it('when the endpoint answers without the nonce, then 400 nonce_mismatch and nothing is stored', async () => {
    const user = await registerUser(api);
    const target = await receiver('wrong');
    await requestEndpoint(user.token, target.url);
    const res = await verifyEndpoint(user.token, target.url);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'nonce_mismatch', detail: expect.any(String) });
    expect(target.requests).toHaveLength(3);
    expect(await contactsOf(user.token)).toEqual([]);
  });

  // Security review 2026-11-23 #17: the answer echoed statuses and raw DNS and socket errors
  // (ECONNREFUSED, resolved addresses), which made verification a probe of hosts and ports.
  it('when the endpoint fails every attempt or cannot be reached, then 400 endpoint_unreachable with the same generic detail', async () => {
    const user = await registerUser(api);
    const broken = await receiver('error');
    await requestEndpoint(user.token, broken.url);
    const failing = await verifyEndpoint(user.token, broken.url);
    expect(failing.status).toBe(400);
    expect(failing.body).toEqual({ code: 'endpoint_unreachable', detail: expect.any(String) });

    const port = await closedPort();
    const nowhere = `http://127.0.0.1:${port}/hook`;
    await requestEndpoint(user.token, nowhere);
    const unreachable = await verifyEndpoint(user.token, nowhere);
    expect(unreachable.status).toBe(400);
    expect(unreachable.body).toEqual(failing.body);
    const { detail } = unreachable.body as unknown as { detail: string };
    for (const leak of ['500', 'ECONNREFUSED', '127.0.0.1', String(port), 'POST', 'GET']) {
      expect(detail).not.toContain(leak);
    }
    expect(await contactsOf(user.token)).toEqual([]);
  });

  it('when there is no challenge for that URL, then 404 no_active_challenge and the endpoint is not called', async () => {
    const user = await registerUser(api);
    const asked = await receiver('json');
    const other = await receiver('json');
    const never = await verifyEndpoint(user.token, other.url);
    expect(never.status).toBe(404);
    expect(never.body).toEqual({ code: 'no_active_challenge', detail: expect.any(String) });
    await requestEndpoint(user.token, asked.url);
    expect((await verifyEndpoint(user.token, other.url)).status).toBe(404);
    expect(other.requests).toEqual([]);
  });

  it('when an endpoint was verified, then its challenge is used up', async () => {
    const user = await registerUser(api);
    const target = await receiver('json');
    await requestEndpoint(user.token, target.url);
    expect((await verifyEndpoint(user.token, target.url)).status).toBe(200);
    expect((await verifyEndpoint(user.token, target.url)).status).toBe(404);
  });

  it('when a second URL is verified, then it replaces the first: one endpoint contact, a new secret', async () => {
    const user = await registerUser(api);
    const first = await receiver('json');
    const second = await receiver('text');
    await requestEndpoint(user.token, first.url);
    const one = await verifyEndpoint(user.token, first.url);
    await requestEndpoint(user.token, second.url);
    const two = await verifyEndpoint(user.token, second.url);
    expect(two.status).toBe(200);
    expect(two.body.secret).toMatch(SECRET);
    expect(two.body.secret).not.toBe(one.body.secret);
    expect(await contactsOf(user.token)).toEqual([
      { kind: 'endpoint', value: second.url, verified_at: expect.any(String) },
    ]);
  });

  it('when a regular user holds an email and an endpoint, then both are listed', async () => {
    const user = await registerUser(api, { email: 'both@example.test' });
    const target = await receiver('json');
    await requestEndpoint(user.token, target.url);
    expect((await verifyEndpoint(user.token, target.url)).status).toBe(200);
    const kinds = (await contactsOf(user.token)).map((contact) => contact.kind).sort();
    expect(kinds).toEqual(['email', 'endpoint']);
  });

  it('when a bot verifies an endpoint through its manager’s delegated session, then the bot holds it', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const delegated = await api.request<Token>('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    const botToken = delegated.body.access_token;
    const target = await receiver('json');
    expect((await requestEndpoint(botToken, target.url)).status).toBe(200);
    const res = await verifyEndpoint(botToken, target.url);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(SECRET);
    expect(await contactsOf(botToken)).toEqual([
      { kind: 'endpoint', value: target.url, verified_at: expect.any(String) },
    ]);
    expect(await contactsOf(manager.token)).toEqual([]);
  });
});

describe('GraphQL endpoint mutations', () => {
  it('when an endpoint is verified through GraphQL, then the answer carries the secret', async () => {
    const user = await registerUser(api);
    const target = await receiver('json');
    const asked = await api.graphql<{ requestEndpointVerification: ChallengeBody }>(
      'mutation($input: EndpointChallengeInput!) { requestEndpointVerification(input: $input) { challenge_id sent } }',
      { input: { url: target.url } },
      { token: user.token },
    );
    expect(asked.body.errors).toBeUndefined();
    expect(asked.body.data!.requestEndpointVerification.sent).toBe(true);
    const verified = await api.graphql<{ verifyEndpoint: VerificationBody }>(
      'mutation($input: EndpointVerifyInput!) { verifyEndpoint(input: $input) { verified kind value secret } }',
      { input: { url: target.url } },
      { token: user.token },
    );
    expect(verified.body.errors).toBeUndefined();
    expect(verified.body.data!.verifyEndpoint).toEqual({
      verified: true,
      kind: 'endpoint',
      value: target.url,
      secret: expect.stringMatching(SECRET),
    });
    const again = await api.graphql(
      'mutation($input: EndpointVerifyInput!) { verifyEndpoint(input: $input) { verified } }',
      { input: { url: target.url } },
      { token: user.token },
    );
    expect(again.body.errors?.[0]?.extensions).toMatchObject({ code: 'no_active_challenge', status: 404 });
  });
});
