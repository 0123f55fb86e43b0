// Answers checked against the OpenAPI document the service publishes (GET /v1/openapi.json), with a
// JSON Schema 2020-12 validator (OpenAPI 3.1's dialect; Ajv, the validator Redocly's linter runs,
// here @redocly/ajv): what a generated client or a fuzzer (schemathesis, 2026-11-28) reads must
// accept what the service answers.
// - `fields=` answers sparse messages (id and the asked fields): the list views and traverse
//   document them (SparseMessageOutput, SparseTraversedMessage), not only the whole MessageOutput.
// - POST /v1/managed/auth/delegate answers a token without setting a cookie, and its documented
//   answer (DelegatedTokenResponse) does not say it sets one, as TokenResponse does.
import ajv2020 from '@redocly/ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createManaged, postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// A CommonJS module: its default export is the class.
const Ajv2020 = ajv2020.default;

interface SchemaObject {
  $ref?: string;
  description?: string;
}
interface Operation {
  responses: Record<string, { content?: Record<string, { schema: SchemaObject }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, SchemaObject> };
}

let api: TestServer;
let doc: Document;
let ajv: InstanceType<typeof Ajv2020>;
let author: TestUser;
beforeAll(async () => {
  api = await startTestServer();
  const res = await api.request<Document>('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  // OpenAPI's own keywords (example, …) are not JSON Schema's: not strict. Formats are not checked.
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, 'openapi');
  author = await registerWriter(api);
});
afterAll(async () => {
  await api.close();
});

/** A JSON pointer token (RFC 6901). */
const token = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

/** The errors of `body` against the documented JSON answer of `method path` with `status`; [] when valid. */
function answerErrors(method: string, path: string, status: number, body: unknown): string[] {
  const pointer = [
    'paths',
    path,
    method,
    'responses',
    String(status),
    'content',
    'application/json',
    'schema',
  ]
    .map(token)
    .join('/');
  const validate = ajv.getSchema(`openapi#/${pointer}`);
  if (!validate) throw new Error(`no documented ${status} answer for ${method} ${path}`);
  return validate(body)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const SPARSE = 'id,content,author,parent_id,timestamp';

describe('sparse answers (fields=) against the OpenAPI document', () => {
  it('when GET /v1/messages/public answers with fields=id,content,author,parent_id,timestamp, then the answer is sparse and valid', async () => {
    await postMessage(api, author.token, { content: 'public and sparse', public: true });
    const res = await api.request<{ messages: Record<string, unknown>[] }>(
      'GET',
      `/v1/messages/public?fields=${SPARSE}&limit=5`,
    );
    expect(res.status).toBe(200);
    expect(res.body.messages.length).toBeGreaterThan(0);
    for (const message of res.body.messages)
      expect(Object.keys(message).sort()).toEqual(SPARSE.split(',').sort());
    expect(answerErrors('get', '/v1/messages/public', 200, res.body)).toEqual([]);
  });

  it('when the timeline, the inbox, a thread and a search answer with and without fields=, then every answer is valid', async () => {
    const word = `sparse${Date.now().toString(36)}`;
    const root = await postMessage(api, author.token, { content: `root ${word}`, recipients: [author.tag] });
    await postMessage(api, author.token, { content: `reply ${word}`, parent_id: root.id });
    const views: [string, string][] = [
      ['/v1/messages/timeline', ''],
      ['/v1/messages/inbox', ''],
      ['/v1/messages/{message_id}/thread', `/v1/messages/${root.id}/thread`],
      ['/v1/messages/search', `/v1/messages/search?q=${word}`],
    ];
    for (const [documented, url] of views) {
      const base = url || documented;
      for (const query of ['', `fields=${SPARSE}`, 'fields=reactions']) {
        const full = query ? `${base}${base.includes('?') ? '&' : '?'}${query}` : base;
        const res = await api.request('GET', full, { token: author.token });
        expect({ full, status: res.status }).toEqual({ full, status: 200 });
        expect({ full, errors: answerErrors('get', documented, 200, res.body) }).toEqual({
          full,
          errors: [],
        });
      }
    }
  });

  it('when traverse answers with fields=, then each message keeps id and depth and the answer is valid', async () => {
    const root = await postMessage(api, author.token, { content: 'walk from here' });
    await postMessage(api, author.token, { content: 'one step down', parent_id: root.id });
    const path = '/v1/messages/traverse-from/{message_id}';
    const res = await api.request<{ messages: Record<string, unknown>[] }>(
      'GET',
      `/v1/messages/traverse-from/${root.id}?down_depth=2&fields=content`,
      { token: author.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.messages.map((message) => Object.keys(message).sort())).toEqual([
      ['content', 'depth', 'id'],
      ['content', 'depth', 'id'],
    ]);
    expect(answerErrors('get', path, 200, res.body)).toEqual([]);
  });

  it('when a message lacks its id or has a field of the wrong type, then the document refuses it: the check can fail', () => {
    const page = (message: Record<string, unknown>) => ({
      messages: [message],
      skip: 0,
      limit: 15,
      has_more: false,
    });
    expect(answerErrors('get', '/v1/messages/public', 200, page({ id: 'a1b2c3d4', content: 'ok' }))).toEqual(
      [],
    );
    expect(answerErrors('get', '/v1/messages/public', 200, page({ content: 'no id' }))).not.toEqual([]);
    expect(answerErrors('get', '/v1/messages/public', 200, page({ id: 'a1b2c3d4', content: 5 }))).not.toEqual(
      [],
    );
  });
});

describe('POST /v1/managed/auth/delegate against the OpenAPI document', () => {
  it('when a manager delegates, then no cookie is set, the answer is valid, and its documented schema does not promise the svc_session cookie', async () => {
    const manager = await registerWriter(api);
    const bot = await createManaged(api, manager.token, { is_bot: true });
    const res = await api.request('POST', '/v1/managed/auth/delegate', {
      token: manager.token,
      body: { managed_uid: bot.uid },
    });
    expect(res.status).toBe(200);
    expect(res.cookies).toEqual({});
    expect(answerErrors('post', '/v1/managed/auth/delegate', 200, res.body)).toEqual([]);

    const documented =
      doc.paths['/v1/managed/auth/delegate']!.post!.responses['200']!.content!['application/json']!.schema;
    expect(documented.$ref).toBe('#/components/schemas/DelegatedTokenResponse');
    const description = doc.components.schemas.DelegatedTokenResponse!.description ?? '';
    expect(description).not.toMatch(/sets the [^.]*svc_session/i);
    expect(description).toContain('No cookie is set');
    // The routes that do set it keep the schema that says so.
    const login = doc.paths['/v1/auth/password/login']!.post!.responses['200']!.content!['application/json']!;
    expect(login.schema.$ref).toBe('#/components/schemas/TokenResponse');
    expect(doc.components.schemas.TokenResponse!.description).toContain('svc_session');
  });
});
