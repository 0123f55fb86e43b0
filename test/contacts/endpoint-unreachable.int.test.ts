// POST /v1/auth/contacts/endpoint/verify when the user's endpoint cannot be reached (fuzz run of
// 2026-11-28): the endpoint is the user's to fix, not a fault of Skein's, so the answer is 400
// endpoint_unreachable in the contract's error shape, never a 5xx, over REST and GraphQL, and the
// OpenAPI document says so. The receivers run on loopback, so this server allows private targets.
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { freshDataDir, startEchoReceiver, type ChallengeBody } from './contact-helpers.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer({ SKEIN_DATA_DIR: freshDataDir(), SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' });
});
afterAll(async () => {
  await api.close();
});

/** A URL on 127.0.0.1 where nothing listens. */
async function nowhere(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

async function askFor(user: TestUser, url: string): Promise<void> {
  const res = await api.request<ChallengeBody>('POST', '/v1/auth/contacts/endpoint/request', {
    token: user.token,
    body: { url },
  });
  expect(res.status).toBe(200);
}

const UNREACHABLE = { code: 'endpoint_unreachable', detail: expect.any(String) };

describe('POST /v1/auth/contacts/endpoint/verify, endpoint unreachable', () => {
  it('when nothing listens at the URL, then 400 endpoint_unreachable in the error shape, not a 5xx', async () => {
    const user = await registerUser(api);
    const url = await nowhere();
    await askFor(user, url);
    const res = await api.request('POST', '/v1/auth/contacts/endpoint/verify', {
      token: user.token,
      body: { url },
    });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: UNREACHABLE });
  });

  it('when the endpoint answers 500 to every attempt, then the same 400 endpoint_unreachable', async () => {
    const user = await registerUser(api);
    const broken = await startEchoReceiver('error');
    try {
      await askFor(user, broken.url);
      const res = await api.request('POST', '/v1/auth/contacts/endpoint/verify', {
        token: user.token,
        body: { url: broken.url },
      });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: UNREACHABLE });
      expect(broken.requests).toHaveLength(3);
    } finally {
      await broken.close();
    }
  });

  it('when verified through GraphQL and nothing listens, then the error says endpoint_unreachable with status 400', async () => {
    const user = await registerUser(api);
    const url = await nowhere();
    await askFor(user, url);
    const res = await api.graphql(
      'mutation($input: EndpointVerifyInput!) { verifyEndpoint(input: $input) { verified } }',
      { input: { url } },
      { token: user.token },
    );
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'endpoint_unreachable', status: 400 });
  });

  it('when the OpenAPI document is read, then the operation lists endpoint_unreachable under 400 and documents no 5xx', async () => {
    const doc = await api.request<{
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    }>('GET', '/v1/openapi.json');
    const responses = doc.body.paths['/v1/auth/contacts/endpoint/verify']!.post!.responses;
    expect(responses['400']?.description).toContain('endpoint_unreachable');
    expect(Object.keys(responses).filter((status) => status.startsWith('5'))).toEqual([]);
  });
});
