// X-Correlation-Id (issue 56): what /v1/openapi.json declares for the header is what the service
// does. The header is never refused (a proxy may set it), so every operation documents it as any
// string, with the echo rule in its description; the service answers as without the header and
// echoes exactly the values that rule names.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}
interface Document {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
}

let api: TestServer;
let user: TestUser;
let doc: Document;

beforeAll(async () => {
  api = await startTestServer();
  user = await registerUser(api);
  doc = (await api.request<Document>('GET', '/v1/openapi.json')).body;
});

afterAll(async () => {
  await api.close();
});

/** The X-Correlation-Id parameter of every operation, with where it was found. */
function correlationParameters(): { key: string; parameter: Parameter | undefined }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      parameter: (operation.parameters ?? []).find((p) => p.in === 'header' && p.name === 'X-Correlation-Id'),
    })),
  );
}

/** The rule the description states, as code: the value that comes back, or null for none. */
function documentedEcho(value: string): string | null {
  return /^[A-Za-z0-9_.:-]{1,128}$/.test(value) ? value : null;
}

const VALID = 'req-42.a:b_C';
const LONGEST = 'a'.repeat(128);
const OVER_LONG = 'a'.repeat(129);
// Characters outside the echoed set, but a value HTTP carries: a space, a slash, quotes, Latin-1.
const WEIRD = 'trace id/"7" é';

describe('X-Correlation-Id in the OpenAPI document', () => {
  it('when any operation is read, then the header is optional and its schema allows any string', () => {
    const documented = correlationParameters();
    expect(documented.length).toBeGreaterThan(50);
    for (const { key, parameter } of documented) {
      expect({ key, required: parameter?.required ?? false, type: parameter?.schema?.type }).toEqual({
        key,
        required: false,
        type: 'string',
      });
      // No constraint an unusual value could break: a value outside the rule is served, not refused.
      for (const constraint of ['pattern', 'minLength', 'maxLength', 'enum', 'format']) {
        expect({ key, constraint, value: parameter?.schema?.[constraint] }).toEqual({
          key,
          constraint,
          value: undefined,
        });
      }
    }
  });

  it('when the header is read, then its description states the echo rule', () => {
    const { parameter } = correlationParameters().find(({ key }) => key === 'GET /healthz')!;
    const description = parameter?.description ?? '';

    expect(description).toContain('never refused');
    expect(description).toContain('1–128 characters, each one of A-Z a-z 0-9 _ . : -, is echoed unchanged');
    expect(description).toContain('Any other value (empty, longer, or with other characters) is ignored');
    expect(description).toContain('never replaced');
  });
});

describe('X-Correlation-Id as the service treats it', () => {
  const values = [VALID, LONGEST, OVER_LONG, WEIRD, ''];

  it('when a value is sent to an operation, then the status is as without it and the echo follows the documented rule', async () => {
    const without = await api.request('GET', '/v1/users/me', { token: user.token });
    expect(without.status).toBe(200);
    for (const value of values) {
      const res = await api.request('GET', '/v1/users/me', {
        token: user.token,
        headers: { 'x-correlation-id': value },
      });
      expect({ value, status: res.status, echoed: res.headers.get('x-correlation-id') }).toEqual({
        value,
        status: 200,
        echoed: documentedEcho(value),
      });
    }
  });

  it('when a value is sent with a failing request, then the error is the same and the echo follows the rule', async () => {
    for (const value of values) {
      const res = await api.request('GET', '/v1/users/me', { headers: { 'x-correlation-id': value } });
      expect({ value, status: res.status, code: (res.body as { code?: string }).code }).toEqual({
        value,
        status: 401,
        code: expect.any(String),
      });
      expect({ value, echoed: res.headers.get('x-correlation-id') }).toEqual({
        value,
        echoed: documentedEcho(value),
      });
    }
  });

  it('when the documented examples are checked, then the rule echoes the valid and the longest, and nothing else', () => {
    expect(values.map(documentedEcho)).toEqual([VALID, LONGEST, null, null, null]);
  });
});
