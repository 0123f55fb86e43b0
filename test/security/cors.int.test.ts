// CORS: off by default; SKEIN_CORS_ORIGINS lists the web origins whose pages may call the API with a
// token (never with the visitor's cookie: no Allow-Credentials).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/platform/config.js';
import { registerUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const APP = 'https://app.example.com';
let open: TestServer;
let closed: TestServer;

beforeAll(async () => {
  open = await startTestServer({ SKEIN_CORS_ORIGINS: `${APP}, http://localhost:5173` });
  closed = await startTestServer();
});

afterAll(async () => {
  await open.close();
  await closed.close();
});

function preflight(api: TestServer, path: string, origin: string) {
  return fetch(api.url + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });
}

describe('CORS with an allow-list', () => {
  it('when a listed origin sends a preflight for a post, then it may send the token and the JSON body, without cookies', async () => {
    for (const path of ['/v1/messages', '/graphql']) {
      const res = await preflight(open, path, APP);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      const allowedHeaders = res.headers.get('access-control-allow-headers')!.toLowerCase();
      for (const header of ['authorization', 'content-type', 'idempotency-key', 'x-api-key'])
        expect(allowedHeaders).toContain(header);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('when a listed origin reads with a token, then the answer names it and exposes the rate-limit headers', async () => {
    const user = await registerUser(open);
    const res = await fetch(`${open.url}/v1/users/me`, {
      headers: { origin: 'http://localhost:5173', authorization: `Bearer ${user.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining');
    expect(res.headers.get('vary')?.toLowerCase()).toContain('origin');
  });

  it('when an origin is not listed, then no answer allows it', async () => {
    const res = await preflight(open, '/v1/messages', 'https://evil.example');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const read = await fetch(`${open.url}/v1/messages/public`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS by default', () => {
  it('when no origin is listed, then no answer, preflight or read, allows any origin', async () => {
    const res = await preflight(closed, '/v1/messages', APP);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const read = await fetch(`${closed.url}/v1/messages/public`, { headers: { origin: APP } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('SKEIN_CORS_ORIGINS', () => {
  it('when a listed origin has a path or no scheme, then start-up refuses it and names the variable', () => {
    for (const value of ['https://app.example.com/app', 'app.example.com', '*']) {
      expect(() => loadConfig({ SKEIN_CORS_ORIGINS: value })).toThrow(/SKEIN_CORS_ORIGINS/);
    }
    expect(loadConfig({ SKEIN_CORS_ORIGINS: 'https://A.example.com:8443,' }).corsOrigins).toEqual([
      'https://a.example.com:8443',
    ]);
  });
});
