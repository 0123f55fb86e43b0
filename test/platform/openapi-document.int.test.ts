// GET /v1/openapi.json: the document passes a strict OpenAPI 3.1 linter (Redocly's recommended
// rules) and tells clients what the service really reads: typed and required bodies, every header,
// optional auth, the body-parser statuses, the webhook payloads, and the rules the validator and the
// use cases enforce beyond the zod shapes (exactly-one fields, formats, lengths, counts and sets).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseScopeList } from '../../src/platform/auth/scopes.js';
import { normalizePhone } from '../../src/components/contacts/contact-values.js';
import { createChannel, registerCreator } from '../channels/channel-helpers.js';
import {
  STRONG_PASSWORD,
  createKey,
  loginAdmin,
  postMessage,
  registerUser,
  registerWriter,
  uniqueTag,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Schema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
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

/** A component schema of the document, by name. */
function schemaOf(name: string): Schema {
  const schema = doc.components.schemas[name] as Schema | undefined;
  if (!schema) throw new Error(`no component ${name}`);
  return schema;
}

/** The object branch of RecipientInput (a tag string or an object). */
function recipientObject(): Schema {
  return schemaOf('RecipientInput').anyOf!.find((branch) => branch.type === 'object')!;
}

/** The `required` list of each alternative, e.g. [['user_tag'], ['uid']]. */
function alternatives(list: Schema[] | undefined): string[][] {
  return (list ?? []).map((alternative) => alternative.required ?? []);
}

function queryParameter(path: string, name: string): Parameter {
  return doc.paths[path]!.get!.parameters!.find((p) => p.in === 'query' && p.name === name)!;
}

/** A JSON Schema pattern as a validator runs it (ECMA-262, unanchored, unicode). */
function matches(pattern: string | undefined, value: string): boolean {
  return new RegExp(pattern!, 'u').test(value);
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

describe('GET /v1/openapi.json: rules the service enforces beyond the zod shapes (fuzz finding D8)', () => {
  it('when a body takes exactly one of two fields, then the document says oneOf, both or neither is refused and one is accepted', async () => {
    for (const [schema, names] of [
      [schemaOf('PasswordLoginRequest'), ['user_tag', 'email']],
      [schemaOf('ChannelMemberAddRequest'), ['user_tag', 'uid']],
      [recipientObject(), ['user_tag', 'uid']],
    ] as const) {
      // Still an object with its properties (rest-parity reads them), plus the rule.
      expect(schema.type).toBe('object');
      expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining([...names]));
      expect(alternatives(schema.oneOf)).toEqual(names.map((name) => [name]));
    }

    const user = await registerUser(api);
    const login = (body: object) => api.request('POST', '/v1/auth/password/login', { body });
    expect(
      (await login({ user_tag: user.tag, email: 'a@example.com', password: user.password })).status,
    ).toBe(422);
    expect((await login({ password: user.password })).status).toBe(422);
    expect((await login({ user_tag: user.tag, password: user.password })).status).toBe(200);

    const creator = await registerCreator(api);
    const channel = await createChannel(api, creator.token);
    const addMember = (body: object) =>
      api.request('POST', `/v1/channels/${channel.id}/members`, { token: creator.token, body });
    expect((await addMember({ user_tag: user.tag, uid: user.uid })).status).toBe(422);
    expect((await addMember({ is_admin: false })).status).toBe(422);
    expect((await addMember({ user_tag: `@${user.tag}` })).status).toBe(200);

    const message = await postMessage(api, creator.token, { content: 'exactly one recipient form' });
    const addRecipient = (recipient: object) =>
      api.request('POST', '/v1/recipients/add', {
        token: creator.token,
        body: { message_id: message.id, recipients: [recipient] },
      });
    expect((await addRecipient({ user_tag: user.tag, uid: user.uid })).status).toBe(422);
    expect((await addRecipient({ public: false })).status).toBe(422);
    expect((await addRecipient({ uid: user.uid, public: false })).status).toBe(200);
  });

  it('when the password reset is read, then it needs email or user_tag or both, and naming neither is refused', async () => {
    for (const name of ['PasswordResetRequestBody', 'PasswordResetBody']) {
      const schema = schemaOf(name);
      expect(schema.type).toBe('object');
      expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(['email', 'user_tag']));
      // "At least one": anyOf (both may be given), inside allOf.
      expect(schema.oneOf).toBeUndefined();
      expect(schema.allOf?.map((part) => alternatives(part.anyOf))).toEqual([[['email'], ['user_tag']]]);
    }

    const request = (body: object) => api.request('POST', '/v1/auth/password/reset/request', { body });
    expect((await request({})).status).toBe(400);
    // An unknown account answers exactly as a known one: 200.
    expect((await request({ user_tag: uniqueTag('nobody') })).status).toBe(200);
    expect((await request({ user_tag: uniqueTag('nobody'), email: 'nobody@example.com' })).status).toBe(200);
    const reset = await api.request('POST', '/v1/auth/password/reset', {
      body: { code: '123456', new_password: STRONG_PASSWORD },
    });
    expect(reset.status).toBe(400);
  });

  it('when search is read, then the operation and each of q, query and tags say one of them is needed, and none is refused', async () => {
    const op = doc.paths['/v1/messages/search']!.get! as Operation & { description?: string };
    const rule = /at least one of `q`, `query` \(not blank\) or `tags`/;
    expect(op.description).toMatch(rule);
    for (const name of ['q', 'query', 'tags']) {
      expect({ name, description: queryParameter('/v1/messages/search', name).description }).toEqual({
        name,
        description: expect.stringMatching(rule),
      });
    }

    expect((await api.request('GET', '/v1/messages/search')).status).toBe(422);
    expect((await api.request('GET', '/v1/messages/search?q=%20%20&tags=,')).status).toBe(422);
    expect((await api.request('GET', '/v1/messages/search?tags=d8-none')).status).toBe(200);
    expect((await api.request('GET', '/v1/messages/search?query=nothing')).status).toBe(200);
  });

  it('when contact fields are read, then email, phone and endpoint URL state their formats, and a malformed one stays a 400', async () => {
    for (const name of [
      'EmailChallengeRequest',
      'EmailVerifyRequest',
      'PasswordResetRequestBody',
      'PasswordResetBody',
    ]) {
      expect({ name, format: schemaOf(name).properties!.email!.format }).toEqual({ name, format: 'email' });
    }
    for (const name of ['EndpointChallengeRequest', 'EndpointVerifyRequest']) {
      expect({ name, format: schemaOf(name).properties!.url!.format }).toEqual({ name, format: 'uri' });
    }
    const pattern = schemaOf('PhoneChallengeRequest').properties!.phone!.pattern;
    expect(schemaOf('PhoneVerifyRequest').properties!.phone!.pattern).toBe(pattern);
    // Whatever the service takes, the pattern admits (it drops spaces, dashes, dots and parentheses).
    for (const phone of ['+14155552671', '+1 (415) 555-2671', ' +1.415.555.2671 ', '+44 20 7946 0958']) {
      expect({
        phone,
        service: normalizePhone(phone).startsWith('+'),
        document: matches(pattern, phone),
      }).toEqual({ phone, service: true, document: true });
    }
    // What the pattern refuses, the service refuses too (invalid_phone).
    for (const phone of [
      '14155552671',
      '+0123',
      '+1234567890123456',
      '++14155552671',
      '+1 415 555 2671 x9',
    ]) {
      expect({ phone, document: matches(pattern, phone) }).toEqual({ phone, document: false });
      expect(() => normalizePhone(phone)).toThrow();
    }

    const user = await registerUser(api);
    const phone = await api.request('POST', '/v1/auth/contacts/phone/request', {
      token: user.token,
      body: { phone: '415 555 2671' },
    });
    expect({ status: phone.status, code: (phone.body as { code?: string }).code }).toEqual({
      status: 400,
      code: 'invalid_phone',
    });
    const email = await api.request('POST', '/v1/auth/contacts/email/request', {
      token: user.token,
      body: { email: 'not-an-email' },
    });
    expect({ status: email.status, code: (email.body as { code?: string }).code }).toEqual({
      status: 400,
      code: 'invalid_email',
    });
  });

  it('when the metrics dates are read, then they are dates with from_date ≤ to_date stated, and an impossible date or a reversed range is refused', async () => {
    const path = '/v1/admin/metrics/messages-per-day';
    expect(queryParameter(path, 'from_date').schema?.format).toBe('date');
    expect(queryParameter(path, 'to_date').schema?.format).toBe('date');
    expect(queryParameter(path, 'from_date').description).toMatch(/not be after `to_date`/);
    expect(queryParameter(path, 'to_date').description).toMatch(/not be before `from_date`/);

    const token = await loginAdmin(api);
    const metrics = (query: string) => api.request('GET', `${path}?${query}`, { token });
    expect((await metrics('from_date=2026-02-30')).status).toBe(422);
    expect((await metrics('from_date=0000-00-00')).status).toBe(422);
    expect((await metrics('from_date=2026-03-02&to_date=2026-03-01')).status).toBe(422);
    expect((await metrics('from_date=2026-03-01&to_date=2026-03-01')).status).toBe(200);
  });

  it('when a password is being set, then it declares 10 characters at least, while sign-in takes any length', async () => {
    const newPasswords = [
      schemaOf('RegisterRequest').properties!.password!,
      schemaOf('PasswordChangeRequest').properties!.new_password!,
      schemaOf('PasswordResetBody').properties!.new_password!,
    ];
    for (const schema of newPasswords) expect([schema.minLength, schema.maxLength]).toEqual([10, 72]);
    for (const schema of [
      schemaOf('PasswordLoginRequest').properties!.password!,
      schemaOf('PasswordChangeRequest').properties!.current_password!,
    ]) {
      expect([schema.minLength, schema.maxLength]).toEqual([undefined, 72]);
    }

    const register = (password: string) =>
      api.request('POST', '/v1/auth/register', { body: { user_tag: uniqueTag('pw'), password } });
    const short = await register('qz8-vk2-p');
    expect({ status: short.status, code: (short.body as { code?: string }).code }).toEqual({
      status: 400,
      code: 'weak_password',
    });
    expect((await register('qz8-vk2-pw')).status).toBe(200);
    // A short password at sign-in is a wrong password (401), not an invalid request.
    const user = await registerUser(api);
    const login = await api.request('POST', '/v1/auth/password/login', {
      body: { user_tag: user.tag, password: 'abc' },
    });
    expect(login.status).toBe(401);
  });

  it('when a subject is read, then it must hold a character that is not whitespace, and a blank one is refused', async () => {
    const subjects = [
      schemaOf('UpdateSubjectRequest').properties!.subject!,
      schemaOf('MessageInput').properties!.subject!,
      schemaOf('ImportedMessageInput').properties!.subject!,
    ];
    for (const schema of subjects) {
      expect({ blank: matches(schema.pattern, ' \t '), text: matches(schema.pattern, ' Plan ') }).toEqual({
        blank: false,
        text: true,
      });
    }

    const writer = await registerWriter(api);
    const message = await postMessage(api, writer.token, { content: 'needs a subject' });
    const setSubject = (subject: string) =>
      api.request('PATCH', `/v1/messages/${message.id}/subject`, { token: writer.token, body: { subject } });
    expect((await setSubject(' \t ')).status).toBe(400);
    expect((await setSubject(' Plan ')).status).toBe(200);
    const posted = await api.request<{ ok: boolean; error?: { status: number } }[]>('POST', '/v1/messages', {
      token: writer.token,
      body: { content: 'blank subject', subject: '   ' },
    });
    expect(posted.body.map((item) => item.error?.status)).toEqual([422]);
  });

  it('when recipients are added or pinged, then the list needs an item, and an empty list is refused', async () => {
    expect(schemaOf('AddRecipientsRequest').properties!.recipients!.minItems).toBe(1);
    expect(schemaOf('PingRequest').properties!.recipients!.minItems).toBe(1);
    // A new message may name nobody.
    expect(schemaOf('MessageInput').properties!.recipients!.minItems).toBeUndefined();

    const writer = await registerWriter(api);
    const other = await registerUser(api);
    const message = await postMessage(api, writer.token, { content: 'who to tell', public: true });
    const add = (recipients: unknown[]) =>
      api.request('POST', '/v1/recipients/add', {
        token: writer.token,
        body: { message_id: message.id, recipients },
      });
    expect((await add([])).status).toBe(400);
    expect((await add([other.tag])).status).toBe(200);
    const ping = (recipients: unknown[]) =>
      api.request('POST', `/v1/messages/${message.id}/ping`, { token: writer.token, body: { recipients } });
    expect((await ping([])).status).toBe(400);
    expect((await ping([other.tag])).status).toBe(200);
  });

  it('when a recipients change is read, then it needs message_id or a non-empty message_ids, and naming neither is refused', async () => {
    for (const name of ['AddRecipientsRequest', 'RemoveRecipientsRequest']) {
      const schema = schemaOf(name);
      expect(Object.keys(schema.properties ?? {})).toEqual(
        expect.arrayContaining(['message_id', 'message_ids']),
      );
      expect(schema.allOf?.map((part) => alternatives(part.anyOf))).toEqual([
        [['message_id'], ['message_ids']],
      ]);
      const listAlternative = schema.allOf![0]!.anyOf![1] as {
        properties: { message_ids: { minItems?: number } };
      };
      expect(listAlternative.properties.message_ids.minItems).toBe(1);
    }

    const writer = await registerWriter(api);
    const other = await registerUser(api);
    const message = await postMessage(api, writer.token, { content: 'which message', public: true });
    const add = (body: object) =>
      api.request('POST', '/v1/recipients/add', {
        token: writer.token,
        body: { recipients: [other.tag], ...body },
      });
    expect((await add({})).status).toBe(400);
    expect((await add({ message_ids: [] })).status).toBe(400);
    expect((await add({ message_ids: [message.id] })).status).toBe(200);
    const remove = (body: object) =>
      api.request('DELETE', '/v1/recipients/remove', {
        token: writer.token,
        body: { recipient_uid: other.uid, ...body },
      });
    expect((await remove({ message_ids: [] })).status).toBe(400);
    expect((await remove({ message_id: message.id })).status).toBe(200);
  });

  it('when keys and tokens are read, then expires_at must be in the future and every scope list is a pattern of the known names', async () => {
    const key = schemaOf('KeyCreateInput').properties!;
    expect(key.expires_at!.description).toMatch(/must be in the future/);
    const token = schemaOf('TokenRequest').properties!;
    const pattern = key.scopes_cap!.pattern;
    expect([token.requested_permissions!.pattern, token.requested_scopes!.pattern]).toEqual([
      pattern,
      pattern,
    ]);
    // The pattern admits exactly what the service parses without unknown names.
    for (const scopes of [
      '',
      'messages.read',
      ' messages.read  messages.write\trealtime.connect ',
      'admin channels.create',
      'messages.read bogus',
      'messagesXread',
      'messages.read,messages.write',
      'admins',
      'messages.read messages.read',
    ]) {
      expect({ scopes, document: matches(pattern, scopes) }).toEqual({
        scopes,
        document: parseScopeList(scopes).unknown.length === 0,
      });
    }

    const writer = await registerWriter(api, { apiAccess: true });
    const create = (body: object) => api.request('POST', '/v1/auth/keys/self', { token: writer.token, body });
    expect((await create({ expires_at: '2020-01-01T00:00:00Z' })).status).toBe(422);
    expect((await create({ scopes_cap: 'messages.read bogus' })).status).toBe(422);
    await createKey(api, writer.token, {
      scopes_cap: 'messages.read messages.write',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
  });
});
