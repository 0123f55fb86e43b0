// The error answers of each operation in GET /v1/openapi.json carry examples with the codes that
// operation answers (what /docs shows), not one generic {"detail": "string", "code": "string"}
// (first-hour review 2026-11-28 #8).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ERROR_STATUS } from '../../src/platform/errors.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Example {
  value: { code: string; detail: unknown };
}
interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { examples?: Record<string, Example> } } }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

let api: TestServer;
let document: Document;
beforeAll(async () => {
  api = await startTestServer();
  document = (await api.request<Document>('GET', '/v1/openapi.json')).body;
});
afterAll(async () => {
  await api.close();
});

function codesOf(path: string, method: string, status: number): string[] {
  const response = document.paths[path]?.[method]?.responses[String(status)];
  return Object.values(response?.content?.['application/json']?.examples ?? {}).map((e) => e.value.code);
}

describe('error examples in the OpenAPI document', () => {
  it('when any operation documents an error status, then it has examples, each a real code of that status', () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const status of Object.keys(operation.responses).map(Number)) {
          if (status < 400 || status === 405) continue;
          const codes = codesOf(path, method, status);
          expect({ operation: `${method} ${path} ${status}`, some: codes.length > 0 }).toEqual({
            operation: `${method} ${path} ${status}`,
            some: true,
          });
          for (const code of codes) {
            expect({ code, status: ERROR_STATUS[code as keyof typeof ERROR_STATUS] }).toEqual({
              code,
              status,
            });
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('when an operation names its codes, then those are its examples', () => {
    expect(codesOf('/v1/managed/users/{uid}/managers', 'post', 403).sort()).toEqual([
      'managed_user_forbidden',
      'not_manager',
    ]);
    expect(codesOf('/v1/notifications', 'get', 403)).toEqual(['insufficient_scope']);
    expect(codesOf('/v1/auth/password/login', 'post', 409)).toEqual(['ambiguous_email']);
    expect(codesOf('/v1/messages/{message_id}', 'get', 404)).toEqual(['message_not_found']);
    expect(codesOf('/v1/messages', 'post', 401).sort()).toEqual([
      'invalid_api_key',
      'invalid_session',
      'not_authenticated',
    ]);
  });
});
