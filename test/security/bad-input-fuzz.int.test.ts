// Bad-input fuzzing driven by the OpenAPI document (issue 7, part 2). For every operation that
// GET /v1/openapi.json describes, cases are generated from its declared path parameters, query
// parameters and body schema: invalid ids, out-of-range and mistyped numbers, values outside an
// enum or a pattern, strings beyond their maxLength, missing required fields, wrong JSON types,
// deeply nested JSON (10 000 and 100 000 levels), malformed JSON, bodies over the size limit,
// wrong content types and charsets, and for the upload route malformed multipart bodies; they are
// sent with a writer's session, some anonymously, and the admin routes also with an admin session.
//
// Two classes of cases:
// - "must fail": input that breaks the contract. The answer must be a 4xx in the contract's error
//   shape (`{detail, code}`, or the 422 list form), never a 5xx, never a hang (per-request time
//   limit), and nothing may be written: the writer's profile, keys, messages (counted through the
//   admin metrics), bookmarks, notifications, channels and managed users are the same before and after.
// - "odd": input that may well be valid (unicode edge cases such as lone surrogates, NUL, RTL marks,
//   combining marks; long strings without a declared limit; unknown query parameters). The answer
//   must not be a 5xx or a hang, and an error must have the contract's shape.
//
// The counts (operations covered, cases generated, failures) are printed for the notes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, createChannel, registerWithScopes } from '../channels/channel-helpers.js';
import {
  WRITER_SCOPES,
  createKey,
  createManaged,
  loginAdmin,
  postMessage,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const REQUEST_TIMEOUT_MS = Number(process.env.SKEIN_FUZZ_TIMEOUT_MS ?? 20_000);
const CONCURRENCY = 4;

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | Schema;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: { type: string; schema: Schema } | null;
  secured: boolean;
}

interface Case {
  op: Operation;
  label: string;
  who: 'writer' | 'anonymous' | 'admin';
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Contract-breaking input: must be refused. Otherwise only "no 5xx, errors well-formed". */
  mustFail: boolean;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

let api: TestServer;
let writer: TestUser;
let adminToken: string;
let seedA: string;
let seedB: string;
let channelId: string;
let memberUid: string;
let keyId: string;
let botUid: string;
let fileId: string;
let operations: Operation[];

/** Values that make each path parameter point at something real, so that body checks are reached. */
let validParams: Record<string, string>;

beforeAll(async () => {
  api = await startTestServer();
  writer = await registerWithScopes(api, [...WRITER_SCOPES, 'channels.create']);
  const member = await registerWriter(api);
  memberUid = member.uid;
  adminToken = await loginAdmin(api);
  seedA = (await postMessage(api, writer.token, { content: 'fuzz seed a', tags: ['fuzz'] })).id;
  seedB = (await postMessage(api, writer.token, { content: 'fuzz seed b', parent_id: seedA })).id;
  const channel = await createChannel(api, writer.token);
  channelId = channel.id;
  await addMember(api, writer.token, channelId, { uid: memberUid });
  keyId = (await createKey(api, writer.token, { label: 'fuzz' })).key_id;
  botUid = (await createManaged(api, writer.token, { is_bot: true })).uid;
  fileId = await upload(writer.token);

  validParams = {
    message_id: seedA,
    message_id_from: seedA,
    message_id_to: seedB,
    channel_id: channelId,
    key_id: keyId,
    subject_uid: botUid,
    user_tag: writer.tag,
    file_id: fileId,
  };
  const doc = await api.request<{ paths: Record<string, Record<string, OpenApiOperation>> }>(
    'GET',
    '/v1/openapi.json',
  );
  expect(doc.status).toBe(200);
  components = (doc.body as unknown as { components: { schemas: Record<string, Schema> } }).components
    .schemas;
  operations = Object.entries(doc.body.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => toOperation(method, path, op)),
  );
}, 120_000);

afterAll(async () => {
  await api?.close();
});

interface OpenApiOperation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: unknown[];
}

let components: Record<string, Schema> = {};

function resolve(schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(components[schema.$ref.split('/').pop()!]);
  return schema;
}

function toOperation(method: string, path: string, op: OpenApiOperation): Operation {
  const content = op.requestBody?.content ?? {};
  const [type] = Object.keys(content);
  return {
    method: method.toUpperCase(),
    path,
    parameters: (op.parameters ?? []).map((p) => ({ ...p, schema: resolve(p.schema) })),
    body: type ? { type, schema: resolve(content[type]!.schema) } : null,
    secured: (op.security ?? []).length > 0,
  };
}

async function upload(token: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob(['fuzz file'], { type: 'text/plain' }), 'fuzz.txt');
  const res = await fetch(`${api.url}/v1/files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { file_id: string }).file_id;
}

// ---------------------------------------------------------------- values

const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** Unicode edge cases, as JS strings (JSON.stringify escapes lone surrogates as \udXXX). */
const ODD_STRINGS: [string, string][] = [
  ['lone high surrogate', 'a\ud800b'],
  ['lone low surrogate', '\udc00'],
  ['NUL', 'a\u0000b'],
  ['RTL override', '\u202eevil\u202c'],
  ['BOM and zero-width', '\ufeff\u200b\u200d'],
  ['combining marks', 'e\u0301\u0301\u0301'],
  ['non-character', '\uffff\ufffe'],
  ['astral', '😀𝕏'],
  ['control characters', '\u0001\u001b[31m\r\n'],
  ['HTML', '<script>alert(1)</script>'],
  ['Cypher', "x' }) MATCH (n) DETACH DELETE n //"],
  ['Lucene', 'a* AND (b OR c~) "d'],
];

/** Path values that name nothing valid (raw: inserted into the URL as they are). */
const BAD_PATH_VALUES: [string, string][] = [
  ['not hex', 'zzzzzzzz'],
  ['upper case', 'ABCDEF12'],
  ['too short', '1234567'],
  ['too long', '123456789'],
  ['NUL', '%00'],
  ['dot segments', '..%2F..%2F'],
  ['invalid UTF-8', '%ED%A0%80'],
  ['lone percent', '%'],
  ['emoji', '%F0%9F%92%A9'],
  ['4000 characters', 'a'.repeat(4000)],
  ['spaces', '%20%20'],
  ['negative number', '-1'],
  ['JSON', '%7B%22%24ne%22%3Anull%7D'],
  ['well-formed id of nothing', 'fffffff0'],
];

function typesOf(schema: Schema): string[] {
  const s = resolve(schema);
  // A typed schema's oneOf/anyOf only narrows it (exactly one of user_tag or uid), it adds no type.
  if (s.type !== undefined) return Array.isArray(s.type) ? s.type : [s.type];
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf)!.flatMap(typesOf);
  return ['any'];
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether a JSON value's type is one the schema never accepts. */
function wrongType(schema: Schema, value: unknown): boolean {
  const types = typesOf(schema);
  if (types.includes('any')) return false;
  const t = jsonType(value);
  if (types.includes(t)) return false;
  if (t === 'integer' && types.includes('number')) return false;
  return true;
}

/** A plausible valid value for a property, so that one bad property is judged with the rest fine. */
function plausible(name: string, schema: Schema): unknown {
  const s = resolve(schema);
  if (s.enum) return s.enum[0];
  const types = typesOf(s);
  if (s.pattern === '^[0-9a-f]{8}$') return name.includes('channel') ? channelId : seedA;
  if (s.pattern?.includes('A-Za-z0-9_.-')) return `fz${randomBytes(4).toString('hex')}`;
  if (s.pattern?.includes('\\d{4}')) return '2024-01-01';
  if (s.format === 'email') return `fuzz-${randomBytes(3).toString('hex')}@example.com`;
  if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
  if (s.format === 'uri' || name === 'url') return 'http://127.0.0.1:9/fuzz';
  if (name === 'phone') return '+15555550100';
  if (types.includes('string')) return name.includes('tag') ? writer.tag : 'fuzz';
  if (types.includes('boolean')) return false;
  if (types.includes('integer') || types.includes('number')) return s.minimum ?? 1;
  if (types.includes('array')) {
    const item = s.items ? plausible(name, s.items) : 'fuzz';
    return (s.minItems ?? 0) > 0 ? [item] : [];
  }
  if (types.includes('object')) return skeleton(s);
  if (types.includes('null')) return null;
  return 'fuzz';
}

/** The required properties of an object schema, each with a plausible value. */
function skeleton(schema: Schema): Record<string, unknown> {
  const s = resolve(schema);
  const body: Record<string, unknown> = {};
  for (const name of s.required ?? []) body[name] = plausible(name, s.properties?.[name] ?? {});
  return body;
}

function objectVariants(schema: Schema): Schema[] {
  const s = resolve(schema);
  // An object with its own properties is one shape; a oneOf beside them only narrows it.
  if (s.properties) return [s];
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf)!.map(resolve).filter((v) => v.properties);
  return [];
}

/**
 * A string outside a pattern, for the "not the pattern" cases: the usual one, or a blank for a
 * pattern that admits it (`\S`, "not blank"); undefined when the pattern admits both.
 */
function outsidePattern(pattern: string): string | undefined {
  return ['\u0000 zz', ' '].find((value) => !new RegExp(pattern, 'u').test(value));
}

// ---------------------------------------------------------------- cases

/** Percent-encoded, with a lone surrogate sent as its (invalid) UTF-8 bytes. */
function queryValue(value: string): string {
  return [...value]
    .map((ch) => (/[\ud800-\udfff]/.test(ch) && ch.length === 1 ? '%ED%A0%80' : encodeURIComponent(ch)))
    .join('');
}

const OPEN_WITH_OPTIONAL_CALLER = new Set([
  'GET /v1/messages/search',
  'GET /v1/messages/public',
  'POST /v1/auth/act-as/return',
]);
/** Operations whose harmless-looking call would end or replace the fuzzing session. */
const SESSION_CHANGING = new Set([
  'POST /v1/auth/logout',
  'POST /v1/auth/password/change',
  'POST /v1/auth/act-as/{subject_uid}',
  'POST /v1/auth/act-as/return',
  'PATCH /v1/admin/users/{uid}',
]);

function pathFor(op: Operation, override: Record<string, string> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (override[name] !== undefined) return override[name];
    if (name === 'uid') {
      if (op.path.startsWith('/v1/channels/')) return memberUid;
      if (op.path.startsWith('/v1/managed/users/')) return botUid;
      return writer.uid;
    }
    return validParams[name] ?? 'ffffffff';
  });
}

function jsonCase(
  op: Operation,
  label: string,
  body: string,
  mustFail: boolean,
  who: Case['who'] = 'writer',
): Case {
  return {
    op,
    label,
    who,
    path: pathFor(op),
    headers: { 'content-type': 'application/json' },
    body,
    mustFail,
  };
}

function pathCases(op: Operation): Case[] {
  const cases: Case[] = [];
  for (const param of op.parameters.filter((p) => p.in === 'path'))
    for (const [label, value] of BAD_PATH_VALUES) {
      // One emoji is exactly what a reaction is: not bad input there.
      if (param.name === 'reaction' && label === 'emoji') continue;
      cases.push({
        op,
        label: `path ${param.name}: ${label}`,
        who: 'writer',
        path: pathFor(op, { [param.name]: value }),
        ...(op.body?.type === 'application/json'
          ? {
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(skeleton(op.body.schema)),
            }
          : {}),
        mustFail: true,
      });
    }
  return cases;
}

function queryCases(op: Operation): Case[] {
  const cases: Case[] = [];
  const base = (label: string, query: string, mustFail: boolean): Case => ({
    op,
    label,
    who: 'writer',
    path: pathFor(op),
    query,
    mustFail,
  });
  for (const param of op.parameters.filter((p) => p.in === 'query')) {
    const s = param.schema;
    const types = typesOf(s);
    const q = (value: string) => `${param.name}=${value}`;
    if (types.includes('integer') || types.includes('number')) {
      const bad: [string, string][] = [
        ['not a number', 'abc'],
        ['Infinity', '1e309'],
        ['fraction', '1.5'],
        ['NaN', 'NaN'],
        ['two values', `1&${param.name}=2`],
        ['1000 digits', '9'.repeat(1000)],
        ['array syntax', `[1]`],
      ];
      for (const [label, value] of bad) cases.push(base(`query ${param.name}: ${label}`, q(value), true));
      if (s.maximum !== undefined)
        cases.push(base(`query ${param.name}: above maximum`, q(String(s.maximum + 1)), true));
      if (s.minimum !== undefined)
        cases.push(base(`query ${param.name}: below minimum`, q(String(s.minimum - 1)), true));
      cases.push(base(`query ${param.name}: negative`, q('-1'), s.minimum !== undefined && s.minimum >= 0));
      cases.push(base(`query ${param.name}: 2^63`, q('9223372036854775808'), s.maximum !== undefined));
      cases.push(base(`query ${param.name}: hex`, q('0x10'), false));
      cases.push(base(`query ${param.name}: empty`, q(''), false));
    } else {
      if (s.enum) cases.push(base(`query ${param.name}: outside the enum`, q('bogus'), true));
      if (s.enum)
        cases.push(
          base(
            `query ${param.name}: two values`,
            q(`${String(s.enum[0])}&${param.name}=${String(s.enum[0])}`),
            true,
          ),
        );
      if (s.maxLength !== undefined)
        cases.push(base(`query ${param.name}: beyond maxLength`, q('a'.repeat(s.maxLength + 1)), true));
      if (s.pattern) {
        cases.push(base(`query ${param.name}: not the pattern`, q('%00zz'), true));
        if (s.pattern.includes('\\d{4}')) {
          cases.push(base(`query ${param.name}: month 13`, q('2024-13-45'), true));
          cases.push(base(`query ${param.name}: day zero`, q('0000-00-00'), true));
        }
      }
      for (const [label, value] of ODD_STRINGS)
        cases.push(base(`query ${param.name}: ${label}`, q(queryValue(value)), false));
      cases.push(
        base(`query ${param.name}: 6000 characters`, q('a'.repeat(6000)), s.maxLength !== undefined),
      );
    }
  }
  cases.push(
    base('query: unknown and prototype keys', '__proto__[admin]=1&constructor[prototype][x]=1&zzz=1', false),
  );
  return cases;
}

function bodyCases(op: Operation): Case[] {
  if (op.body?.type !== 'application/json') return [];
  const schema = op.body.schema;
  const variants = objectVariants(schema);
  const required = variants.length > 0 && variants.every((v) => (v.required ?? []).length > 0);
  const closed = variants.length > 0 && variants.every((v) => v.additionalProperties === false);
  const cases: Case[] = [
    jsonCase(op, 'malformed JSON: unclosed', '{', true),
    jsonCase(op, 'malformed JSON: missing value', '{"a":}', true),
    jsonCase(op, 'malformed JSON: single quotes', "{'a': 1}", true),
    jsonCase(op, 'malformed JSON: trailing comma', '[1,]', true),
    jsonCase(op, 'top-level null', 'null', true),
    jsonCase(op, 'top-level number', '42', true),
    jsonCase(op, 'top-level string', '"fuzz"', true),
    jsonCase(op, 'empty array', '[]', true),
    jsonCase(op, 'deep array, 10 000 levels', deepArray(10_000), true),
    jsonCase(op, 'deep array, 100 000 levels', deepArray(100_000), true),
    // A body schema that takes any extra key (the ignored refresh body) may accept this one.
    jsonCase(op, 'deep object, 10 000 levels', deepObject(10_000), closed),
    jsonCase(
      op,
      'body over 1 MB',
      JSON.stringify({ ...skeleton(schema), padding: 'a'.repeat(1_100_000) }),
      true,
    ),
    {
      ...jsonCase(op, 'charset utf-16', JSON.stringify(skeleton(schema)), true),
      headers: { 'content-type': 'application/json; charset=utf-16' },
    },
    {
      ...jsonCase(op, 'gzip body that is not gzip', JSON.stringify(skeleton(schema)), true),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    },
    {
      ...jsonCase(op, 'text/plain body', '{}', required),
      headers: { 'content-type': 'text/plain' },
    },
    {
      ...jsonCase(op, 'XML body', '<a/>', required),
      headers: { 'content-type': 'application/xml' },
    },
    {
      ...jsonCase(op, 'form body', 'a=1', required),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    {
      ...jsonCase(op, 'invalid UTF-8 bytes', '', false),
      body: Buffer.concat([
        Buffer.from('{"content":"'),
        Buffer.from([0xff, 0xfe, 0xc0, 0x80]),
        Buffer.from('"}'),
      ]),
    },
    jsonCase(op, 'prototype keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}', false),
  ];
  if (required) cases.push(jsonCase(op, 'empty object', '{}', true));

  for (const variant of variants) {
    const base = skeleton(variant);
    for (const name of variant.required ?? []) {
      const rest = { ...base };
      delete rest[name];
      cases.push(jsonCase(op, `missing ${name}`, JSON.stringify(rest), true));
    }
    for (const [name, raw] of Object.entries(variant.properties ?? {})) {
      const property = resolve(raw);
      const with_ = (value: unknown) => JSON.stringify({ ...base, [name]: value });
      const wrongValues: unknown[] = [12345, 1.5, true, 'fuzz', [], {}, null, [null]];
      for (const value of wrongValues)
        if (wrongType(property, value))
          cases.push(
            jsonCase(
              op,
              `${name}: ${jsonType(value)} instead of ${typesOf(property).join('|')}`,
              with_(value),
              true,
            ),
          );
      const types = typesOf(property);
      if (types.includes('string') || types.includes('any')) {
        if (property.maxLength !== undefined)
          cases.push(
            jsonCase(op, `${name}: beyond maxLength`, with_('a'.repeat(property.maxLength + 1)), true),
          );
        else cases.push(jsonCase(op, `${name}: 200 000 characters`, with_('a'.repeat(200_000)), false));
        if (property.minLength !== undefined && property.minLength > 0)
          cases.push(jsonCase(op, `${name}: empty string`, with_(''), true));
        if (property.enum) cases.push(jsonCase(op, `${name}: outside the enum`, with_('bogus'), true));
        const outside = property.pattern === undefined ? undefined : outsidePattern(property.pattern);
        if (outside !== undefined) cases.push(jsonCase(op, `${name}: not the pattern`, with_(outside), true));
        for (const [label, value] of ODD_STRINGS)
          cases.push(jsonCase(op, `${name}: ${label}`, with_(value), false));
      }
      if (types.includes('integer') || types.includes('number')) {
        if (property.maximum !== undefined)
          cases.push(jsonCase(op, `${name}: above maximum`, with_(property.maximum + 1), true));
        if (property.minimum !== undefined)
          cases.push(jsonCase(op, `${name}: below minimum`, with_(property.minimum - 1), true));
        cases.push(jsonCase(op, `${name}: 1e308`, with_(1e308), property.maximum !== undefined));
      }
      if (types.includes('array')) {
        if (property.maxItems !== undefined)
          cases.push(
            jsonCase(
              op,
              `${name}: beyond maxItems`,
              with_(
                Array.from({ length: property.maxItems + 1 }, () => plausible(name, property.items ?? {})),
              ),
              true,
            ),
          );
        cases.push(
          jsonCase(op, `${name}: deep nesting`, `{"${name}":${deepArray(10_000)}}`, !types.includes('any')),
        );
        const items = property.items ? resolve(property.items) : {};
        for (const value of [12345, null, {}, [[]]])
          if (property.items && wrongType(items, value))
            cases.push(jsonCase(op, `${name}[0]: ${jsonType(value)}`, with_([value]), true));
      }
      if (types.includes('object') && property.additionalProperties === false)
        cases.push(
          jsonCase(op, `${name}: unknown key`, with_({ ...skeleton(property), zzz_unknown: 1 }), true),
        );
      if (types.includes('any'))
        cases.push(jsonCase(op, `${name}: deep object`, `{"${name}":${deepObject(10_000)}}`, false));
    }
    if (variant.additionalProperties === false)
      cases.push(jsonCase(op, 'unknown top-level key', JSON.stringify({ ...base, zzz_unknown: 1 }), true));
  }
  return cases;
}

/** Malformed multipart bodies for the upload route. */
function multipartCases(op: Operation): Case[] {
  if (op.body?.type !== 'multipart/form-data') return [];
  const boundary = 'fuzzboundary';
  const part = (headers: string, content: string) => `--${boundary}\r\n${headers}\r\n\r\n${content}\r\n`;
  const file = (name = 'file', filename = 'a.txt') =>
    part(
      `Content-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain`,
      'data',
    );
  const end = `--${boundary}--\r\n`;
  const type = `multipart/form-data; boundary=${boundary}`;
  const c = (label: string, body: string | Buffer, mustFail: boolean, contentType = type): Case => ({
    op,
    label: `multipart: ${label}`,
    who: 'writer',
    path: op.path,
    headers: { 'content-type': contentType },
    body,
    mustFail,
  });
  return [
    c('no boundary', file() + end, true, 'multipart/form-data'),
    c('other boundary', file() + end, true, 'multipart/form-data; boundary=another'),
    c('empty body', '', true),
    c('truncated (no closing boundary)', file().slice(0, -6), true),
    c('no file part, only a field', part('Content-Disposition: form-data; name="note"', 'x') + end, true),
    c('file part under another name', file('other') + end, true),
    c('two files', file() + file() + end, true),
    c(
      '13 parts',
      Array.from({ length: 13 }, (_, i) => part(`Content-Disposition: form-data; name="f${i}"`, 'x')).join(
        '',
      ) +
        file() +
        end,
      true,
    ),
    c(
      'field over 4096 bytes',
      part('Content-Disposition: form-data; name="note"', 'x'.repeat(5000)) + file() + end,
      true,
    ),
    c('part without headers', `--${boundary}\r\n\r\ndata\r\n` + end, true),
    c('no Content-Disposition', part('Content-Type: text/plain', 'data') + end, true),
    c('JSON instead of multipart', '{"file":"x"}', true, 'application/json'),
    c('text/plain', 'data', true, 'text/plain'),
    c('garbage bytes', Buffer.from([0xff, 0x00, 0xfe, 0x2d, 0x2d]), true),
    c('file name 10 000 characters', file('file', 'a'.repeat(10_000)) + end, false),
    c('file name with NUL and path', file('file', '../../etc/pa\u0000sswd') + end, false),
    c('file name with RTL mark', file('file', 'gpj.\u202eexe') + end, false),
    c('empty file name', file('file', '') + end, false),
    c('empty file', part('Content-Disposition: form-data; name="file"; filename="e.txt"', '') + end, false),
    c(
      'content type garbage',
      part('Content-Disposition: form-data; name="file"; filename="a"\r\nContent-Type: ;;;/', 'x') + end,
      false,
    ),
  ];
}

function anonymousCases(op: Operation): Case[] {
  const key = `${op.method} ${op.path}`;
  const cases: Case[] = [
    {
      op,
      label: 'anonymous',
      who: 'anonymous',
      path: pathFor(op),
      // Secured operations refuse an anonymous caller (401), whatever else is wrong.
      mustFail: op.secured && !OPEN_WITH_OPTIONAL_CALLER.has(key),
    },
  ];
  if (op.method !== 'GET') cases.push(jsonCase(op, 'anonymous, malformed JSON', '{"a":', true, 'anonymous'));
  return cases;
}

/** Malformed credentials: a secured operation answers 401. */
function credentialCases(op: Operation): Case[] {
  if (!op.secured) return [];
  const bad: [string, Record<string, string>][] = [
    ['8000-character bearer token', { authorization: `Bearer ${'x'.repeat(8000)}` }],
    ['forged session token', { authorization: 'Bearer svc_session_0000000000000000.forged' }],
    ['session token without secret', { authorization: 'Bearer svc_session_' }],
    ['latin-1 bearer token', { authorization: 'Bearer svc_session_\u00e9\u00ff.x' }],
    ['Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['forged API key', { 'x-api-key': `sk_${'0'.repeat(40)}` }],
    ['API key without prefix', { 'x-api-key': 'x' }],
    ['forged session cookie', { cookie: 'svc_session=svc_session_0000000000000000.forged' }],
    ['two session cookies', { cookie: 'svc_session=a; svc_session=b' }],
  ];
  // Where the caller is optional, a stale cookie is cleared and the request goes on anonymously, and
  // an Authorization header that is no Bearer token is no credential (authenticate-request.ts).
  const optional = OPEN_WITH_OPTIONAL_CALLER.has(`${op.method} ${op.path}`);
  return bad.map(([label, headers]) => ({
    op,
    label: `credentials: ${label}`,
    who: 'anonymous' as const,
    path: pathFor(op),
    headers,
    mustFail:
      !optional || /^Bearer \S/.test(headers.authorization ?? '') || headers['x-api-key'] !== undefined,
  }));
}

function casesFor(op: Operation): Case[] {
  if (op.method === 'GET' && op.path === '/v1/openapi.json') return anonymousCases(op);
  const all = [
    ...pathCases(op),
    ...queryCases(op),
    ...bodyCases(op),
    ...multipartCases(op),
    ...anonymousCases(op),
    ...credentialCases(op),
  ];
  const key = `${op.method} ${op.path}`;
  return all.flatMap((c) => {
    // Harmless-looking calls that would end or replace the session, or destroy the fixtures the
    // other cases aim at, are sent only in forms that must be refused.
    if (!c.mustFail && c.who === 'writer' && (SESSION_CHANGING.has(key) || op.method === 'DELETE')) return [];
    if (op.path.startsWith('/v1/admin/') && c.who === 'writer')
      return c.mustFail ? [c, { ...c, who: 'admin' as const }] : [c];
    return [c];
  });
}

// ---------------------------------------------------------------- sending and judging

async function send(c: Case): Promise<Answer | 'timeout'> {
  const headers: Record<string, string> = { ...c.headers };
  if (c.who === 'writer') headers.authorization = `Bearer ${writer.token}`;
  if (c.who === 'admin') headers.authorization = `Bearer ${adminToken}`;
  const url = `${api.url}${c.path}${c.query ? `?${c.query}` : ''}`;
  try {
    const res = await fetch(url, {
      method: c.op.method,
      headers,
      ...(c.body === undefined || c.op.method === 'GET' ? {} : { body: c.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
      return 'timeout';
    throw error;
  }
}

/** The contract's error shape: {detail: sentence, code}, or for 422 {detail: [{loc, msg, type}], code}. */
function errorShapeProblem(answer: Answer): string | null {
  if (!answer.contentType.includes('application/json'))
    return `error without a JSON body (${answer.contentType})`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'error body is not JSON';
  }
  if (!body || typeof body !== 'object') return 'error body is not an object';
  const { code, detail } = body as { code?: unknown; detail?: unknown };
  if (typeof code !== 'string' || !/^[a-z_]+$/.test(code)) return `error code ${JSON.stringify(code)}`;
  if (answer.status === 422 && code === 'validation_error') {
    const ok =
      Array.isArray(detail) &&
      detail.length > 0 &&
      detail.every(
        (issue: { loc?: unknown; msg?: unknown; type?: unknown }) =>
          Array.isArray(issue.loc) && typeof issue.msg === 'string' && typeof issue.type === 'string',
      );
    return ok ? null : 'a 422 without the list of {loc, msg, type}';
  }
  return typeof detail === 'string' && detail.length > 0 ? null : 'error detail is not a sentence';
}

/** POST /v1/messages answers 200 with per-item results; every item refused counts as a refusal. */
function everyItemRefused(answer: Answer): boolean {
  try {
    const body = JSON.parse(answer.text) as unknown;
    return (
      Array.isArray(body) && body.length > 0 && body.every((item: { ok?: unknown }) => item.ok === false)
    );
  } catch {
    return false;
  }
}

function judge(c: Case, answer: Answer | 'timeout'): string | null {
  if (answer === 'timeout') return `no answer within ${REQUEST_TIMEOUT_MS} ms`;
  if (answer.status >= 500) return `${answer.status} ${answer.text.slice(0, 200)}`;
  if (answer.status >= 400) {
    const shape = errorShapeProblem(answer);
    return shape ? `${answer.status}: ${shape}: ${answer.text.slice(0, 200)}` : null;
  }
  if (c.mustFail && !everyItemRefused(answer))
    return `accepted (${answer.status}) input that breaks the contract: ${answer.text.slice(0, 200)}`;
  return null;
}

async function pool<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(size, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
    }),
  );
}

interface RunReport {
  operations: number;
  cases: number;
  refused: number;
  statuses: Record<string, number>;
  failures: string[];
}

async function fuzz(cases: Case[]): Promise<RunReport> {
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  let refused = 0;
  await pool(cases, CONCURRENCY, async (c) => {
    const answer = await send(c);
    const status = answer === 'timeout' ? 'timeout' : String(answer.status);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (answer !== 'timeout' && answer.status >= 400) refused++;
    const problem = judge(c, answer);
    if (problem) failures.push(`${c.op.method} ${c.op.path} [${c.who}] ${c.label}: ${problem}`);
  });
  return {
    operations: new Set(cases.map((c) => `${c.op.method} ${c.op.path}`)).size,
    cases: cases.length,
    refused,
    statuses,
    failures,
  };
}

/** What the writer owns and sees: none of it may change when every request is refused. */
async function writerState(): Promise<Record<string, unknown>> {
  const get = async (path: string, token = writer.token) => {
    const res = await api.request('GET', path, { token });
    return { status: res.status, body: res.body };
  };
  const metrics = await api.request<{ author: { uid: string }; count: number }[]>(
    'GET',
    '/v1/admin/metrics/messages-per-day?limit=10000',
    { token: adminToken },
  );
  const keys = (await get('/v1/auth/keys')).body as { keys: Record<string, unknown>[] };
  return {
    me: await get('/v1/users/me'),
    messagesWritten: metrics.body
      .filter((row) => row.author.uid === writer.uid)
      .reduce((n, row) => n + row.count, 0),
    seedA: await get(`/v1/messages/${seedA}`),
    seedB: await get(`/v1/messages/${seedB}`),
    history: await get('/v1/messages/history?limit=100'),
    bookmarks: await get('/v1/messages/bookmarks?limit=100'),
    keys: keys.keys.map(({ last_used_at: _, ...key }) => key),
    channels: await get('/v1/channels'),
    members: await get(`/v1/channels/${channelId}/members`),
    managed: await get('/v1/managed/users'),
    // Without the cursor: it is a position in the log every test file running beside this one writes.
    notifications: ((await get('/v1/notifications?limit=100')).body as { notifications: unknown })
      .notifications,
  };
}

async function sessionAlive(): Promise<boolean> {
  return (await api.request('GET', '/v1/auth/session', { token: writer.token })).status === 200;
}

function report(what: string, run: RunReport): void {
  console.log(
    `bad-input fuzz (${what}): ${run.operations} operations, ${run.cases} cases, ${run.refused} refused, ` +
      `${run.failures.length} failures; statuses ${JSON.stringify(run.statuses)}`,
  );
}

describe('every operation of the OpenAPI document', () => {
  it('when it gets input that breaks the contract, then every answer is a 4xx in the error shape, in time, and nothing is written', async () => {
    const cases = operations.flatMap(casesFor).filter((c) => c.mustFail);
    expect(operations.length).toBeGreaterThan(70);
    const before = await writerState();
    const run = await fuzz(cases);
    report('must fail', run);
    expect(await sessionAlive()).toBe(true);
    expect(await writerState()).toEqual(before);
    expect(run.failures).toEqual([]);
  }, 900_000);

  it('when it gets odd but possibly valid input (unicode edge cases, long strings, unknown parameters), then no answer is a 5xx or a hang, and errors have the contract shape', async () => {
    const cases = operations.flatMap(casesFor).filter((c) => !c.mustFail);
    const run = await fuzz(cases);
    report('odd', run);
    expect(run.failures).toEqual([]);
    expect((await api.request('GET', '/readyz')).status).toBe(200);
  }, 900_000);
});
