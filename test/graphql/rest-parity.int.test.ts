// GraphQL and REST are one API (docs/decisions/009): every REST operation in the route table (read
// from /v1/openapi.json, which the route table generates) has a GraphQL field whose description
// names it, and the field takes the REST names: path and query parameters and top-level body
// fields are arguments, or fields of an input-object argument. No name may differ.
// The list below holds the routes that are not API operations; it only shrinks: a new REST route
// without a GraphQL field fails here.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  Kind,
  parse,
  type FieldDefinitionNode,
  type InputObjectTypeDefinitionNode,
  type TypeNode,
} from 'graphql';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** REST operations with no GraphQL field, and why. */
const WITHOUT_GRAPHQL: Record<string, string> = {
  'GET /healthz': 'operations, not API',
  'GET /readyz': 'operations, not API',
  'GET /v1/openapi.json': 'the REST description itself',
  'GET /v1/auth/.well-known/jwks.json': 'key material for token verifiers, not API',
  'GET /v1/ws/v1': 'the WebSocket; GraphQL has the notifications subscription over graphql-ws',
  'POST /v1/chat/completions':
    "OpenAI's wire format for OpenAI clients (decision 033); in GraphQL the same exchange is postMessages and the live subscription",
};

/** REST parameters GraphQL has no need of: `fields=` narrows an answer, as a selection set does. */
const REST_ONLY_PARAMETERS = new Set(['fields']);

interface Schema {
  type?: string;
  properties?: Record<string, unknown>;
  $ref?: string;
}
interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

let api: TestServer;
let doc: Document;
beforeAll(async () => {
  api = await startTestServer();
  doc = (await api.request<Document>('GET', '/v1/openapi.json')).body;
});
afterAll(async () => {
  await api.close();
});

function graphqlFields(): { field: FieldDefinitionNode; routes: string[] }[] {
  const dir = path.join(process.cwd(), 'schema');
  const sdl = readdirSync(dir)
    .map((file) => readFileSync(path.join(dir, file), 'utf8'))
    .join('\n');
  const ast = parse(sdl);
  const result: { field: FieldDefinitionNode; routes: string[] }[] = [];
  for (const def of ast.definitions) {
    if (def.kind !== Kind.OBJECT_TYPE_DEFINITION && def.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    if (!['Query', 'Mutation', 'Subscription'].includes(def.name.value)) continue;
    for (const field of def.fields ?? []) {
      const text = field.description?.value ?? '';
      const routes = [...text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s:,;()]+)/g)].map(
        (match) => `${match[1]} ${match[2]}`,
      );
      result.push({ field, routes });
    }
  }
  return result;
}

function inputTypes(): Map<string, InputObjectTypeDefinitionNode> {
  const dir = path.join(process.cwd(), 'schema');
  const ast = parse(
    readdirSync(dir)
      .map((file) => readFileSync(path.join(dir, file), 'utf8'))
      .join('\n'),
  );
  const types = new Map<string, InputObjectTypeDefinitionNode>();
  for (const def of ast.definitions)
    if (def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) types.set(def.name.value, def);
  return types;
}

function namedType(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);
}

/** Path placeholders differ in name only ({id} vs {message_id}); compare shapes. */
const shape = (route: string) => route.replace(/\{[^}]+\}/g, '{}');

function restNames(op: Operation): string[] {
  const names = (op.parameters ?? []).filter((p) => p.in === 'path' || p.in === 'query').map((p) => p.name);
  let schema = op.requestBody?.content['application/json']?.schema;
  if (schema?.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()!];
  if (schema?.type === 'object') names.push(...Object.keys(schema.properties ?? {}));
  return names;
}

describe('GraphQL and REST parity', () => {
  it('when the route table is listed, then every REST operation has a GraphQL field with the same names', () => {
    const fields = graphqlFields();
    const inputs = inputTypes();
    const missing: string[] = [];
    const drift: Record<string, string[]> = {};
    for (const [route, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${route}`;
        const match = fields.find(({ routes }) => routes.some((r) => shape(r) === shape(key)));
        if (!match) {
          missing.push(key);
          continue;
        }
        const graphqlNames = new Set<string>();
        for (const arg of match.field.arguments ?? []) {
          graphqlNames.add(arg.name.value);
          for (const inner of inputs.get(namedType(arg.type))?.fields ?? [])
            graphqlNames.add(inner.name.value);
        }
        const differing = restNames(op).filter(
          (name) => !graphqlNames.has(name) && !REST_ONLY_PARAMETERS.has(name),
        );
        if (differing.length > 0) drift[key] = differing;
      }
    }
    expect(missing.sort()).toEqual(Object.keys(WITHOUT_GRAPHQL).sort());
    expect(drift).toEqual({});
  });
});
