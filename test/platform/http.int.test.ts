// The HTTP platform: health and readiness, the OpenAPI document against the routes the app
// serves, body parsing failures, the error shape, and headers.
import { SessionCache } from '../../src/components/identity/session-cache.js';
import { ViewCache } from '../../src/platform/http/view-cache.js';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LocalEventBus } from '../../src/components/event-log/event-bus.js';
import type { LiveServices } from '../../src/components/live/live-services.js';
import type { EventLogServices } from '../../src/components/event-log/event-log-services.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { Signal } from '../../src/platform/signal.js';
import { createLogger } from '../../src/platform/logger.js';
import { Database } from '../../src/platform/neo4j/database.js';
import { createRateLimits } from '../../src/platform/rate-limits.js';
import { loginAdmin, registerUser } from '../support/factories.js';
import { freePort } from '../support/test-neo4j.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

/**
 * Every REST route, as mounted by src/platform/http/health.rest.ts and src/components/*\/*.rest.ts,
 * in OpenAPI form. A route added to the app must be added here and to the document.
 */
const ROUTES = [
  // platform/http/health.rest.ts
  'GET /healthz',
  'GET /readyz',
  'GET /v1/openapi.json',
  'GET /v1/streams',
  'GET /v1/streams/{stream_id}',
  // identity/identity.rest.ts
  'GET /v1/auth/.well-known/jwks.json',
  'POST /v1/auth/token',
  'GET /v1/auth/keys',
  'POST /v1/auth/keys/self',
  'DELETE /v1/auth/keys/{key_id}',
  'GET /v1/auth/session',
  'GET /v1/auth/sessions',
  'DELETE /v1/auth/sessions/{session_id}',
  'POST /v1/auth/sessions/revoke-others',
  'POST /v1/auth/sessions/refresh',
  'POST /v1/auth/password/login',
  'POST /v1/auth/password/change',
  'POST /v1/auth/logout',
  'POST /v1/auth/act-as/return',
  'POST /v1/auth/act-as/{subject_uid}',
  'POST /v1/auth/register',
  'POST /v1/managed/auth/delegate',
  // users/users.rest.ts
  'GET /v1/users/me',
  'POST /v1/users/profile',
  'GET /v1/users/by-tag/{user_tag}',
  'GET /v1/users/search',
  'POST /v1/managed/users',
  'GET /v1/managed/users',
  'PATCH /v1/managed/users/{uid}',
  'POST /v1/managed/users/{uid}/deactivate',
  'POST /v1/managed/users/{uid}/reactivate',
  'DELETE /v1/managed/users/{uid}',
  'GET /v1/managed/users/{uid}/managers',
  'POST /v1/managed/users/{uid}/managers',
  'DELETE /v1/managed/users/{uid}/managers/{manager_uid}',
  'GET /v1/managed/invitations',
  'POST /v1/managed/invitations/{uid}/accept',
  'POST /v1/managed/invitations/{uid}/decline',
  // admin/admin.rest.ts
  'PATCH /v1/admin/users/{uid}',
  // messages/messages.rest.ts
  'GET /v1/messages/{message_id}',
  'POST /v1/messages',
  // messages/message-edits.rest.ts
  'DELETE /v1/messages/{message_id}',
  'DELETE /v1/messages/batch',
  'PATCH /v1/messages/{message_id}/public',
  'PATCH /v1/messages/public/batch',
  'PATCH /v1/messages/{message_id}/subject',
  'PATCH /v1/messages/{message_id}/content',
  'GET /v1/messages/{message_id}/context',
  'GET /v1/messages/{message_id}/edits',
  'GET /v1/messages/tags',
  'PATCH /v1/messages/{message_id}/tags',
  'PATCH /v1/messages/tags/batch',
  'PATCH /v1/messages/{message_id}/reply_order',
  'PATCH /v1/messages/{message_id}/default_outgoing',
  'POST /v1/messages/{message_id}/read',
  'PUT /v1/messages/{message_id}/bookmark',
  'DELETE /v1/messages/{message_id}/bookmark',
  'GET /v1/messages/bookmarks',
  // reactions/reactions.rest.ts
  'PUT /v1/messages/{message_id}/reactions/{reaction}',
  'DELETE /v1/messages/{message_id}/reactions/{reaction}',
  'GET /v1/messages/{message_id}/reactions',
  // links/links.rest.ts
  'POST /v1/links/messages/{message_id_from}/{message_id_to}',
  'DELETE /v1/links/messages/{message_id_from}/{message_id_to}',
  'GET /v1/links/messages/{message_id}/incoming',
  'GET /v1/links/messages/{message_id}/outgoing',
  // recipients/recipients.rest.ts
  'POST /v1/recipients/add',
  'POST /v1/streams',
  'POST /v1/streams/{stream_id}/chunks',
  'POST /v1/streams/{stream_id}/finish',
  'POST /v1/streams/{stream_id}/stop',
  'POST /v1/typing',
  'DELETE /v1/recipients/remove',
  // channels/channels.rest.ts
  'GET /v1/channels',
  'POST /v1/channels',
  'GET /v1/channels/{channel_id}',
  'PATCH /v1/channels/{channel_id}',
  'DELETE /v1/channels/{channel_id}',
  'GET /v1/channels/{channel_id}/members',
  'POST /v1/channels/{channel_id}/members',
  'POST /v1/chat/completions',
  'DELETE /v1/channels/{channel_id}/members/{uid}',
  'GET /v1/channels/{channel_id}/messages',
  'PATCH /v1/messages/{message_id}/channels',
  // threads/threads.rest.ts
  'GET /v1/messages/timeline',
  'GET /v1/messages/inbox',
  'GET /v1/messages/history',
  'GET /v1/messages/public',
  'GET /v1/messages/traverse-from/{message_id}',
  'GET /v1/messages/{message_id}/tree-ids',
  'GET /v1/messages/{message_id}/thread',
  'GET /v1/messages/conversation/{uid}',
  'GET /v1/messages/unread',
  'POST /v1/messages/{message_id}/thread/read',
  // search, similar, export, models, metrics
  'GET /v1/messages/search',
  'GET /v1/messages/similar/{message_id}',
  'GET /v1/messages/search/similar/{message_id}',
  'GET /v1/messages/timeline/export',
  'GET /v1/models',
  'GET /v1/admin/metrics/messages-per-day',
  'POST /v1/messages/import/quote',
  'POST /v1/files/upload',
  'GET /v1/files/{file_id}',
  // events/events.rest.ts
  'POST /v1/messages/{message_id}/ping',
  'GET /v1/notifications',
  'GET /v1/ws/v1',
  // contacts/contacts.rest.ts
  'POST /v1/auth/contacts/email/request',
  'POST /v1/auth/contacts/email/verify',
  'POST /v1/auth/contacts/phone/request',
  'POST /v1/auth/contacts/phone/verify',
  'POST /v1/auth/contacts/endpoint/request',
  'POST /v1/auth/contacts/endpoint/verify',
  'POST /v1/auth/password/reset/request',
  'POST /v1/auth/password/reset',
  'POST /v1/auth/email-code/request',
  'POST /v1/auth/email-code/login',
  // webhooks/webhooks.rest.ts
  'GET /v1/managed/users/{uid}/deliveries',
  'POST /v1/managed/users/{uid}/deliveries/{webhook_id}/redeliver',
  'POST /v1/managed/users/{uid}/endpoint/secret/rotate',
  'PATCH /v1/managed/users/{uid}/endpoint',
];

/** Sample values for path parameters, so that each listed route can be called. */
const SAMPLE_PARAMS: Record<string, string> = {
  key_id: '0badc0de',
  session_id: '0badc0de0badc0de',
  subject_uid: '0badc0de',
  user_tag: 'nobody-here',
  uid: '0badc0de',
  manager_uid: '0badc0de',
  message_id: '0badc0de',
  message_id_from: '0badc0de',
  message_id_to: '0badc0df',
  channel_id: '0badc0de',
  webhook_id: 'msg_0badc0de0badc0de0badc0de0badc0de_0badc0de',
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface MediaType {
  schema?: Record<string, unknown>;
}
interface Operation {
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

async function openApi(): Promise<OpenApiDocument> {
  const res = await api.request<OpenApiDocument>('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  return res.body;
}

function operations(doc: OpenApiDocument): { key: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
  );
}

function expectErrorShape(res: ApiResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'detail']);
  expect(res.body.code).toBe(code);
  if (code !== 'validation_error') {
    expect(typeof res.body.detail).toBe('string');
    expect((res.body.detail as string).length).toBeGreaterThan(0);
  }
}

describe('GET /healthz and /readyz', () => {
  it('when the process is up, then /healthz answers 200 {status: ok}', async () => {
    const res = await api.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('when Neo4j answers, then /readyz answers 200 {status: ready}', async () => {
    const res = await api.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('when Neo4j does not answer, then /readyz answers 503 unavailable while /healthz stays 200', async () => {
    // The real app against a Bolt port where nothing listens.
    const config = loadConfig({
      NEO4J_URI: `bolt://127.0.0.1:${await freePort()}`,
      NEO4J_PASSWORD: 'unused',
      LOG_LEVEL: 'silent',
      PORT: '0',
    });
    const db = Database.connect({
      uri: config.neo4j.uri!,
      user: 'neo4j',
      password: 'unused',
      database: undefined,
    });
    const metrics = createMetrics({ defaults: false });
    const app = await createApp({
      config,
      db,
      log: createLogger('silent'),
      limits: createRateLimits(config),
      // No database, so no router can start: only the bus is there, for the app to be built.
      events: { bus: new LocalEventBus() } as unknown as EventLogServices,
      live: {} as LiveServices,
      metrics,
      sessions: await SessionCache.start(config, db, createLogger('silent')),
      views: await ViewCache.start(config, db, createLogger('silent'), metrics),
      webhookWork: new Signal(),
    });
    const server = createServer(app.express).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ detail: expect.any(String), code: 'unavailable' });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await db.close();
    }
  });

  it('when /readyz is documented, then its 503 answer is documented', async () => {
    const doc = await openApi();
    expect(Object.keys(doc.paths['/readyz']?.get?.responses ?? {})).toContain('503');
  });
});

describe('GET /v1/openapi.json', () => {
  it('when fetched, then it is an OpenAPI 3.1 document with the three security schemes', async () => {
    const doc = await openApi();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual(['apiKey', 'bearer', 'cookie']);
  });

  it('when compared with the routes the app mounts, then it documents exactly those routes', async () => {
    const documented = operations(await openApi()).map((op) => op.key);
    expect([...documented].sort()).toEqual([...ROUTES].sort());
  });

  it('when each listed route is called, then the app serves it (no 404 not_found)', async () => {
    for (const route of ROUTES) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? 'x');
      const res = await api.request(method, path, method === 'GET' ? {} : { body: {} });
      const unserved = res.status === 404 && res.body?.code === 'not_found';
      expect({ route, unserved }).toEqual({ route, unserved: false });
      expect(res.status).toBeLessThan(500);
    }
  });

  it('when each literal route is called signed in, then no route with a path parameter takes it over', async () => {
    const user = await registerUser(api);
    for (const route of ROUTES) {
      const [method, path] = route.split(' ') as [string, string];
      // Logout would end the session the remaining calls use.
      if (path.includes('{') || path === '/v1/auth/logout') continue;
      const res = await api.request(method, path, {
        token: user.token,
        ...(method === 'GET' ? {} : { body: {} }),
      });
      const detail: unknown = res.body?.detail;
      const pathIssue =
        Array.isArray(detail) && detail.some((issue: { loc?: unknown[] }) => issue.loc?.[0] === 'path');
      expect({ route, pathIssue, serverError: res.status >= 500 }).toEqual({
        route,
        pathIssue: false,
        serverError: false,
      });
    }
  });

  it('when a documented path is called with a method it lacks, then 405 and Allow lists exactly its documented methods', async () => {
    const doc = await openApi();
    for (const [template, item] of Object.entries(doc.paths)) {
      const documented = Object.keys(item)
        .filter((method) => HTTP_METHODS.includes(method))
        .map((method) => method.toUpperCase());
      const missing = ['PUT', 'PATCH', 'DELETE', 'POST'].find((method) => !documented.includes(method));
      if (!missing) continue;
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? 'x');
      const res = await api.request(missing, path, { body: {} });
      const allowed = (res.headers.get('allow') ?? '').split(', ').filter((method) => method !== 'HEAD');
      expect({ template, missing, status: res.status, allowed: allowed.sort() }).toEqual({
        template,
        missing,
        status: 405,
        allowed: [...documented].sort(),
      });
    }
  });

  it('when any operation is read, then its success answer is documented with a schema (JSON but for file downloads)', async () => {
    for (const { key, operation } of operations(await openApi())) {
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
      expect({ key, successes: success.length }).toEqual({ key, successes: 1 });
      const content = success[0]?.[1].content ?? {};
      // A download is sent with its stored type, so the document says any type.
      const mediaType = key === 'GET /v1/files/{file_id}' ? '*/*' : 'application/json';
      const schema = content[mediaType]?.schema;
      expect({ key, hasSchema: schema !== undefined }).toEqual({ key, hasSchema: true });
    }
  });

  it('when an operation takes input, then it documents the 422 validation answer', async () => {
    for (const { key, operation } of operations(await openApi())) {
      // Headers (X-Correlation-Id on every operation) are not validated, so they bring no 422.
      const validated = (operation.parameters ?? []).filter((parameter) => parameter.in !== 'header');
      const takesInput = validated.length > 0 || operation.requestBody !== undefined;
      if (!takesInput) continue;
      expect({ key, has422: '422' in (operation.responses ?? {}) }).toEqual({ key, has422: true });
    }
  });

  it('when an operation accepts credentials, then a bad token answers 401 and the document lists 401', async () => {
    const badToken = `svc_session_${'0'.repeat(16)}.${'A'.repeat(43)}`;
    for (const { key, operation } of operations(await openApi())) {
      if ((operation.security ?? []).length === 0) continue;
      const [method, template] = key.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? 'x');
      const res = await api.request(method, path, {
        token: badToken,
        ...(method === 'GET' ? {} : { body: {} }),
      });
      expect({ key, status: res.status, documents401: '401' in (operation.responses ?? {}) }).toEqual({
        key,
        status: 401,
        documents401: true,
      });
    }
  });

  it('when an error answer is documented, then its body is the shared Error schema', async () => {
    const doc = await openApi();
    expect(doc.components?.schemas?.Error).toBeDefined();
    for (const { key, operation } of operations(doc)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const schema = response.content?.['application/json']?.schema;
        expect({ key, status, schema }).toEqual({
          key,
          status,
          schema: { $ref: '#/components/schemas/Error' },
        });
      }
    }
  });
});

describe('request bodies', () => {
  it('when the JSON body is malformed, then 400 invalid_json', async () => {
    const res = await api.request('POST', '/v1/auth/register', {
      rawBody: '{"user_tag": "abc", "password": ',
      headers: { 'content-type': 'application/json' },
    });
    expectErrorShape(res, 400, 'invalid_json');
  });

  it('when the body is valid JSON but not an object, then 422 validation_error about the body, not invalid_json', async () => {
    for (const rawBody of ['"AAA"', '1', 'true', 'null', '[]']) {
      const res = await api.request('POST', '/v1/auth/register', {
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      expect({ rawBody, status: res.status, code: res.body?.code }).toEqual({
        rawBody,
        status: 422,
        code: 'validation_error',
      });
      expectErrorShape(res, 422, 'validation_error');
      expect((res.body.detail as { loc: unknown[] }[])[0]?.loc).toEqual(['body']);
    }
  });

  it('when a signed-in write gets a JSON string as its body, then 422 validation_error', async () => {
    const user = await registerUser(api);
    const res = await api.request('PATCH', '/v1/messages/0badc0de/public', {
      token: user.token,
      rawBody: '"AAA"',
      headers: { 'content-type': 'application/json' },
    });
    expectErrorShape(res, 422, 'validation_error');
  });

  it('when the JSON body is over 1 MB, then 413 payload_too_large', async () => {
    const res = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: 'big', password: 'x'.repeat(1024 * 1024 + 1) },
    });
    expectErrorShape(res, 413, 'payload_too_large');
  });

  it('when the JSON body is large but under 1 MB, then it is read and validated (422, not 413)', async () => {
    const res = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: 'big', password: 'x'.repeat(900 * 1024) },
    });
    expectErrorShape(res, 422, 'validation_error');
  });
});

describe('integer query parameters', () => {
  const NOT_DECIMAL = ['1e1', '0x10', '0b11', ' 5', '5 ', '5.0', '+5', '', '5abc'];

  it('when an integer query parameter is not written in decimal digits, then 422 naming that parameter', async () => {
    const user = await registerUser(api);
    const admin = await loginAdmin(api);
    const cases: [string, string, string][] = [
      [user.token, '/v1/messages/timeline', 'limit'],
      [user.token, '/v1/messages/timeline', 'skip'],
      [user.token, '/v1/messages/traverse-from/0badc0de', 'up_depth'],
      [user.token, '/v1/messages/traverse-from/0badc0de', 'down_depth'],
      [user.token, '/v1/notifications', 'limit'],
      [user.token, '/v1/messages/similar/0badc0de', 'limit'],
      [user.token, '/v1/messages/similar/0badc0de', 'max_n'],
      [user.token, '/v1/messages/timeline/export', 'days'],
      [admin, '/v1/admin/metrics/messages-per-day', 'limit'],
    ];
    for (const [token, path, name] of cases) {
      for (const value of NOT_DECIMAL) {
        const res = await api.request('GET', `${path}?${name}=${encodeURIComponent(value)}`, { token });
        const locs = Array.isArray(res.body?.detail)
          ? (res.body.detail as { loc: unknown[] }[]).map((issue) => issue.loc.join('.'))
          : res.body?.detail;
        expect({ path, name, value, status: res.status, locs }).toEqual({
          path,
          name,
          value,
          status: 422,
          locs: [`query.${name}`],
        });
      }
    }
  });

  it('when an integer query parameter is decimal digits, then it is read as that number', async () => {
    const user = await registerUser(api);
    const res = await api.request('GET', '/v1/messages/timeline?skip=007&limit=16', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ skip: 7, limit: 16 });
  });
});

describe('errors', () => {
  it('when the path is unknown, then 404 {detail, code: not_found}', async () => {
    const res = await api.request('GET', '/v1/no/such/path');
    expectErrorShape(res, 404, 'not_found');
  });

  it('when a known path is called with a method it lacks, then 405 method_not_allowed with Allow', async () => {
    const res = await api.request('PUT', '/v1/users/me', { body: {} });
    expectErrorShape(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('when a literal path is called with a method only its parameterised sibling has, then 405 rather than the sibling', async () => {
    const user = await registerUser(api);
    for (const [method, path, allow] of [
      ['DELETE', '/v1/messages/tags', 'GET, HEAD'],
      ['GET', '/v1/files/upload', 'POST'],
      ['DELETE', '/v1/auth/keys/self', 'POST'],
      ['POST', '/v1/links/messages/0badc0de/incoming', 'GET, HEAD'],
      ['GET', '/v1/auth/act-as/return', 'POST'],
    ] as const) {
      const res = await api.request(method, path, { token: user.token });
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      expectErrorShape(res, 405, 'method_not_allowed');
    }
  });

  it('when OPTIONS is asked of a literal path, then Allow lists the methods of that path only', async () => {
    const res = await api.request('OPTIONS', '/v1/files/upload');
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('when authentication is missing or invalid, then the error body is exactly {detail, code}', async () => {
    expectErrorShape(await api.request('GET', '/v1/users/me'), 401, 'not_authenticated');
    expectErrorShape(
      await api.request('GET', '/v1/users/me', { token: `svc_session_${'0'.repeat(16)}.${'A'.repeat(43)}` }),
      401,
      'invalid_session',
    );
  });

  it('when validation fails, then 422 with detail as a list of {loc, msg, type}', async () => {
    const res = await api.request('POST', '/v1/auth/register', { body: { user_tag: '-bad', password: 1 } });
    expectErrorShape(res, 422, 'validation_error');
    const detail = res.body.detail as { loc: unknown[]; msg: unknown; type: unknown }[];
    expect(detail.length).toBeGreaterThanOrEqual(2);
    for (const issue of detail) {
      expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
      expect(issue.loc[0]).toBe('body');
    }
    expect(detail.map((issue) => issue.loc[1]).sort()).toEqual(['password', 'user_tag']);
  });

  it('when a conflict or a lookup fails, then the error body is exactly {detail, code}', async () => {
    const user = await registerUser(api);
    const taken = await api.request('POST', '/v1/auth/register', {
      body: { user_tag: user.tag.toUpperCase(), password: user.password },
    });
    expectErrorShape(taken, 409, 'user_tag_taken');
    const missing = await api.request('GET', '/v1/users/by-tag/nobody-at-all-here', { token: user.token });
    expectErrorShape(missing, 404, 'user_not_found');
  });
});

describe('headers', () => {
  it('when X-Correlation-Id is sent, then it is echoed on success and on error', async () => {
    const ok = await api.request('GET', '/healthz', { headers: { 'x-correlation-id': 'req-42.a:b' } });
    expect(ok.headers.get('x-correlation-id')).toBe('req-42.a:b');
    const missing = await api.request('GET', '/v1/nowhere', { headers: { 'x-correlation-id': 'req-43' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-correlation-id')).toBe('req-43');
  });

  it('when a session is refreshed with X-Correlation-Id, then it is echoed', async () => {
    const user = await registerUser(api);
    const res = await api.request('POST', '/v1/auth/sessions/refresh', {
      token: user.token,
      headers: { 'x-correlation-id': 'refresh-7' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toBe('refresh-7');
  });

  it('when any answer is sent, then it has no X-Powered-By header', async () => {
    for (const path of ['/healthz', '/v1/openapi.json', '/v1/no/such/path', '/v1/users/me']) {
      const res = await api.request('GET', path);
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
    const gql = await api.graphql('{ health }');
    expect(gql.headers.get('x-powered-by')).toBeNull();
  });
});
