// GET /v1/openapi.json: the document passes a strict OpenAPI 3.1 linter (Redocly's recommended
// rules) and tells clients what the service really reads: typed and required bodies, every header,
// optional auth, the body-parser statuses, and the webhook payloads.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown; example?: unknown }> };
  responses: Record<string, unknown>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}

let api: TestServer;
let doc: Document;
beforeAll(async () => {
  api = await startTestServer();
  const res = await api.request<Document>('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await api.close();
});

function refName(op: Operation): string {
  return JSON.stringify(op.requestBody).match(/#\/components\/schemas\/(\w+)/)![1]!;
}

function operations(): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]): [string, string, Operation] => [method, path, op]),
  );
}

describe('GET /v1/openapi.json', () => {
  it('when the document is linted with Redocly recommended rules, then it has no errors or warnings', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'skein-openapi-'));
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const run = promisify(execFile);
    const result = await run(
      process.execPath,
      [
        'node_modules/@redocly/cli/bin/cli.js',
        'lint',
        file,
        '--config',
        'redocly.yaml',
        '--max-problems',
        '200',
      ],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).catch((error: { stdout: string; stderr: string }) => ({ stdout: error.stdout, stderr: error.stderr }));
    expect(result.stderr).toContain('Your API description is valid');
    expect(result.stderr).not.toMatch(/\d+ warnings?/);
  }, 120_000);

  it('when any operation is read, then it has a unique operationId and a summary', () => {
    const ids = new Set<string>();
    for (const [method, path, op] of operations()) {
      expect({ method, path, operationId: typeof op.operationId, summary: typeof op.summary }).toEqual({
        method,
        path,
        operationId: 'string',
        summary: 'string',
      });
      expect(ids.has(op.operationId!)).toBe(false);
      ids.add(op.operationId!);
    }
  });

  it('when an operation takes a JSON body, then it has an example and documents 400, 413 and 415', () => {
    for (const [method, path, op] of operations()) {
      const json = op.requestBody?.content['application/json'];
      if (!json) continue;
      expect({ method, path, example: json.example !== undefined }).toEqual({ method, path, example: true });
      expect({ method, path, statuses: Object.keys(op.responses) }).toEqual({
        method,
        path,
        statuses: expect.arrayContaining(['400', '413', '415']),
      });
    }
  });

  it('when a body the service refuses to miss is read, then it is marked required, and sending none fails', async () => {
    const user = await api.request<{ access_token: string }>('POST', '/v1/auth/register', {
      body: { user_tag: `oa${Date.now().toString(36)}`, password: 'correct horse battery staple' },
    });
    for (const [method, path] of [
      ['post', '/v1/messages'],
      ['post', '/v1/auth/register'],
      ['post', '/v1/channels'],
      ['patch', '/v1/messages/{message_id}/public'],
    ] as const) {
      expect({ method, path, required: doc.paths[path]![method]!.requestBody?.required }).toEqual({
        method,
        path,
        required: true,
      });
      const res = await api.request(method.toUpperCase(), path.replace('{message_id}', '0000abcd'), {
        token: user.body.access_token,
      });
      expect({ path, status: res.status >= 400 && res.status < 500 }).toEqual({ path, status: true });
    }
    // {} is a valid read-state body (read defaults to true), so the document must not require one.
    expect(doc.paths['/v1/messages/{message_id}/read']!.post!.requestBody?.required).toBe(false);
  });

  it('when POST /v1/messages is read, then its body is typed by MessageInput and it declares Idempotency-Key', () => {
    const op = doc.paths['/v1/messages']!.post!;
    expect(JSON.stringify(op.requestBody)).toContain('#/components/schemas/MessagesPostBody');
    expect(JSON.stringify(doc.components.schemas.MessagesPostBody)).toContain(
      '#/components/schemas/MessageInput',
    );
    expect(op.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]),
    );
    expect(doc.components.schemas).toHaveProperty('ImportedMessageInput');
    const quote = doc.paths['/v1/messages/import/quote']!.post!;
    expect(JSON.stringify(doc.components.schemas[refName(quote)])).toContain(
      '#/components/schemas/ImportedMessageInput',
    );
  });

  it('when POST /v1/auth/token is read, then it declares the x-api-key header as required', () => {
    const op = doc.paths['/v1/auth/token']!.post!;
    expect(op.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'x-api-key', in: 'header', required: true })]),
    );
  });

  it('when any operation is read, then it declares the X-Correlation-Id header', () => {
    for (const [method, path, op] of operations()) {
      const names = (op.parameters ?? []).map((p) => `${p.in}:${p.name}`);
      expect({ method, path, names }).toEqual({
        method,
        path,
        names: expect.arrayContaining(['header:X-Correlation-Id']),
      });
    }
  });

  it('when an operation allows anonymous callers, then its security lists the empty alternative', () => {
    for (const path of ['/v1/messages/public', '/v1/messages/search']) {
      expect(doc.paths[path]!.get!.security).toEqual(expect.arrayContaining([{}]));
    }
    expect(doc.paths['/v1/messages/inbox']!.get!.security).not.toEqual(expect.arrayContaining([{}]));
  });

  it('when the webhooks section is read, then it describes the deliveries with their signature headers', () => {
    expect(Object.keys(doc.webhooks ?? {})).toEqual(
      expect.arrayContaining(['sent', 'ping', 'added', 'channels']),
    );
    expect(JSON.stringify(doc.webhooks)).toContain('webhook-signature');
  });

  it('when query flags and pages are read, then each default has the declared type (regression: false in a string enum)', () => {
    for (const [method, path, op] of operations()) {
      for (const param of op.parameters ?? []) {
        const schema = (param as Parameter & { schema?: { type?: unknown; default?: unknown } }).schema;
        if (schema?.default === undefined) continue;
        const type = typeof schema.default === 'number' ? 'integer' : typeof schema.default;
        expect({ method, path, name: param.name, type: schema.type }).toEqual({
          method,
          path,
          name: param.name,
          type: type === 'number' ? 'number' : type,
        });
      }
    }
  });

  it('when bot metadata is read, then the input component is not nullable and the output allows null', () => {
    const bot = doc.components.schemas.BotMetadata as { type: unknown };
    expect(bot.type).toBe('object');
    const user = doc.components.schemas.UserOutput as { properties: { bot: unknown } };
    expect(JSON.stringify(user.properties.bot)).toContain('"null"');
  });

  it('when the file download is read, then it documents any media type and the by-tag path its pattern', () => {
    const download = doc.paths['/v1/files/{file_id}']!.get!.responses['200'] as { content: object };
    expect(Object.keys(download.content)).toEqual(['*/*']);
    const byTag = doc.paths['/v1/users/by-tag/{user_tag}']!.get!.parameters!.find(
      (p) => p.name === 'user_tag',
    );
    expect(JSON.stringify(byTag)).toContain('pattern');
  });
});
