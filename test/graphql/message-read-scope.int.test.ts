// Security finding #2: a token without messages.read read messages through GraphQL nested fields
// (Message.parent / replies / stitchParents / stitchChildren on what write mutations answer). This
// file does not list the fields by hand: it introspects the schema, walks from every root field to
// every field whose type is a Message or an EventMessage (and on to the message fields nested in
// those), asks each path with a key capped to every scope but messages.read, and expects the 403
// insufficient_scope that the other scope refusals use, with no message content in the answer.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { GRAPHQL_LIMITS } from '../../src/platform/graphql/graphql-server.js';
import { addMember, createChannel } from '../channels/channel-helpers.js';
import {
  WRITER_SCOPES,
  createKey,
  grant,
  postMessage,
  registerUser,
  registerWriter,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { socketUrl } from '../support/ws-client.js';

let api: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  await api.close();
});

// ---- the schema, as introspection tells it ----

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: { name: string; type: TypeRef }[];
  type: TypeRef;
}
interface SchemaType {
  kind: string;
  name: string;
  fields: Field[] | null;
}
interface Introspection {
  __schema: {
    queryType: { name: string };
    mutationType: { name: string } | null;
    subscriptionType: { name: string } | null;
    types: SchemaType[];
  };
}

const TYPE_REF =
  'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
const INTROSPECT = /* GraphQL */ `
  {
    __schema {
      queryType { name }
      mutationType { name }
      subscriptionType { name }
      types { kind name fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } }
    }
  }
`;

/** The types carrying message content. */
const MESSAGE_TYPES = new Set(['Message', 'EventMessage']);

function namedType(ref: TypeRef): string {
  return ref.ofType ? namedType(ref.ofType) : ref.name!;
}

function isList(ref: TypeRef): boolean {
  return ref.kind === 'LIST' || (ref.ofType !== null && isList(ref.ofType));
}

function listNesting(path: Step[]): number {
  return path.filter((step) => isList(step.field.type)).length;
}

function typeText(ref: TypeRef): string {
  if (ref.kind === 'NON_NULL') return `${typeText(ref.ofType!)}!`;
  if (ref.kind === 'LIST') return `[${typeText(ref.ofType!)}]`;
  return ref.name!;
}

/** One step of a path: a field, by the type that holds it. */
interface Step {
  owner: string;
  field: Field;
}

class SchemaWalk {
  private readonly types: Map<string, SchemaType>;

  constructor(readonly schema: Introspection['__schema']) {
    this.types = new Map(schema.types.map((t) => [t.name, t]));
  }

  fieldsOf(typeName: string): Field[] {
    return this.types.get(typeName)?.fields ?? [];
  }

  /**
   * Every path from `typeName` down to the first field whose type is a message type, through object
   * types only, never through the same type twice.
   */
  pathsToMessages(typeName: string, seen: string[] = [], depth = 5): Step[][] {
    if (depth === 0) return [];
    const paths: Step[][] = [];
    for (const field of this.fieldsOf(typeName)) {
      const target = namedType(field.type);
      if (field.name.startsWith('__')) continue;
      if (MESSAGE_TYPES.has(target)) paths.push([{ owner: typeName, field }]);
      else if (this.types.get(target)?.kind === 'OBJECT' && !seen.includes(target)) {
        for (const rest of this.pathsToMessages(target, [...seen, typeName], depth - 1)) {
          paths.push([{ owner: typeName, field }, ...rest]);
        }
      }
    }
    return paths;
  }

  /** Paths from a root field to messages, and from there on to each message field nested in them. */
  walks(root: string): Step[][] {
    const walks: Step[][] = [];
    for (const path of this.pathsToMessages(root)) {
      walks.push(path);
      const end = namedType(path.at(-1)!.field.type);
      for (const nested of this.pathsToMessages(end, [], 3)) walks.push([...path, ...nested]);
    }
    // Lists nested deeper than the limit are refused before anything runs; no answer to look at.
    return walks.filter((walk) => listNesting(walk) <= GRAPHQL_LIMITS.maxListNesting);
  }
}

// ---- the test data the walk's arguments name ----

interface World {
  owner: TestUser;
  key: string;
  secret: string;
  root: string;
  channel: string;
  stream: string;
}

/** The value of a required argument, by its name (and the field's, for `id`). */
function argumentValue(world: World, field: string, arg: string, type: string): unknown {
  const reply = { content: 'a write-only reply', parent_id: world.root };
  const byName: Record<string, unknown> = {
    id: /channel/i.test(field) ? world.channel : world.root,
    ids: [world.root],
    message_id: world.root,
    from_id: world.root,
    to_id: world.root,
    channel_id: world.channel,
    channel_ids: [world.channel],
    public: false,
    subject: 'a subject',
    tags: ['scope-walk'],
    recipients: [{ uid: world.owner.uid }],
    messages: type.includes('Imported')
      ? [{ ...reply, import_info: { source: 'scope-walk', author_name: 'someone' } }]
      : [reply],
    input: { display_name: 'Walked' },
    uid: world.owner.uid,
    manager_uid: world.owner.uid,
    content: 'an edited content',
    webhook_id: 'msg_0badc0de0badc0de0badc0de0badc0de_0badc0de',
    stream_id: world.stream,
    last_seq: 1,
  };
  if (!(arg in byName)) throw new Error(`no value for the required argument ${field}(${arg}: ${type})`);
  return byName[arg];
}

/** The operation that asks for one path, with a variable for each required argument on the way. */
function operation(
  world: World,
  kind: 'query' | 'mutation' | 'subscription',
  path: Step[],
  /** Optional arguments of the root field to pass as well. */
  optional: Record<string, unknown> = {},
): { text: string; variables: Record<string, unknown> } {
  const declarations: string[] = [];
  const variables: Record<string, unknown> = {};
  const calls = path.map((step, i) => {
    const passed = step.field.args.filter(
      (a) => a.type.kind === 'NON_NULL' || (i === 0 && a.name in optional),
    );
    const given = passed.map((a) => {
      const variable = `v${declarations.length}`;
      declarations.push(`$${variable}: ${typeText(a.type)}`);
      variables[variable] =
        a.name in optional
          ? optional[a.name]
          : argumentValue(world, step.field.name, a.name, typeText(a.type));
      return `${a.name}: $${variable}`;
    });
    return given.length > 0 ? `${step.field.name}(${given.join(', ')})` : step.field.name;
  });
  const selection = calls.reduceRight((inner, call) => `${call} { ${inner} }`, 'id content');
  const header = declarations.length > 0 ? `(${declarations.join(', ')})` : '';
  return { text: `${kind} Walk${header} { ${selection} }`, variables };
}

function describePath(path: Step[]): string {
  return path.map((step, i) => (i === 0 ? `${step.owner}.${step.field.name}` : step.field.name)).join('.');
}

interface GqlAnswer {
  data?: unknown;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** What is wrong with an answer to a path: it must be refused for messages.read, and nothing else. */
function problemsOf(world: World, answer: GqlAnswer): string[] {
  const problems: string[] = [];
  const text = JSON.stringify(answer);
  if (text.includes(world.secret)) problems.push('message content leaked');
  const errors = answer.errors ?? [];
  if (errors.length === 0) problems.push('not refused');
  for (const error of errors) {
    const { code, status } = error.extensions ?? {};
    if (code !== 'insufficient_scope' || status !== 403 || !error.message.includes('messages.read')) {
      problems.push(`unexpected error ${JSON.stringify(error)}`);
    }
  }
  return problems;
}

function subscriptionClient(apiKey: string): Client {
  // The key goes in the upgrade request's own x-api-key header.
  class KeySocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { 'x-api-key': apiKey } });
    }
  }
  const made = createClient({
    url: socketUrl(api, '/graphql'),
    webSocketImpl: KeySocket,
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(made);
  return made;
}

/** The first value a subscription hands out (a payload with data and/or errors). */
async function firstValue(
  made: Client,
  text: string,
  variables: Record<string, unknown>,
): Promise<GqlAnswer> {
  const iterator = made.iterate({ query: text, variables });
  try {
    const result = await iterator.next();
    if (result.done) throw new Error('the subscription ended without a value');
    return result.value as GqlAnswer;
  } finally {
    await iterator.return?.();
  }
}

/**
 * A writer holding every scope, whose visible graph holds the secret everywhere a walk can reach it:
 * a private root with a private reply, stitches both ways, the root in the writer's channel, and a
 * notification about a message sent to the writer. The key is capped to everything but messages.read.
 */
async function buildWorld(): Promise<World & { since: string }> {
  const secret = `readsecret${randomBytes(5).toString('hex')}`;
  const owner = await registerUser(api);
  await grant(api, owner.uid, { scopes: [...WRITER_SCOPES, 'channels.create'], has_api_access: true });
  const login = await api.request<{ access_token: string }>('POST', '/v1/auth/password/login', {
    body: { user_tag: owner.tag, password: owner.password },
  });
  expect(login.status).toBe(200);
  const token = login.body.access_token;
  const full = { ...owner, token };
  const start = await api.request<{ cursor: string }>('GET', '/v1/notifications', { token });
  expect(start.status).toBe(200);

  const channel = await createChannel(api, token);
  const root = await postMessage(api, token, { content: `root ${secret}`, channel_ids: [channel.id] });
  await postMessage(api, token, { content: `reply ${secret}`, parent_id: root.id });
  const above = await postMessage(api, token, { content: `stitched above ${secret}` });
  const below = await postMessage(api, token, { content: `stitched below ${secret}` });
  for (const [from, to] of [
    [above.id, root.id],
    [root.id, below.id],
  ]) {
    const res = await api.request('POST', `/v1/links/messages/${from}/${to}`, { token });
    expect(res.status).toBeLessThan(300);
  }
  const sender = await registerWriter(api);
  await addMember(api, token, channel.id, { uid: sender.uid });
  await postMessage(api, sender.token, { content: `sent ${secret}`, recipients: [owner.tag] });

  const { key } = await createKey(api, token, {
    label: 'write-only worker',
    scopes_cap: 'messages.write realtime.connect channels.create',
  });
  // A streamed reply the key's owner writes, for finishStream (whose answer carries the message).
  const stream = await api.request<{ stream_id: string }>('POST', '/v1/streams', {
    token,
    body: { parent_id: root.id, content: `streamed ${secret}` },
  });
  expect(stream.status).toBe(201);
  return {
    owner: full,
    key,
    secret,
    root: root.id,
    channel: channel.id,
    stream: stream.body.stream_id,
    since: start.body.cursor,
  };
}

describe('messages.read on every GraphQL field answering a message (finding #2)', () => {
  it('when a key without messages.read asks for any path to a Message or EventMessage, then each is refused with 403 insufficient_scope and no content', async () => {
    const world = await buildWorld();
    const introspection = await api.graphql<Introspection>(INTROSPECT, {}, { token: world.owner.token });
    expect(introspection.body.errors).toBeUndefined();
    const schema = introspection.body.data!.__schema;
    const walk = new SchemaWalk(schema);

    const asked: string[] = [];
    const problems: Record<string, string[]> = {};
    const roots: ['query' | 'mutation', string | undefined][] = [
      ['query', schema.queryType.name],
      ['mutation', schema.mutationType?.name],
    ];
    for (const [kind, root] of roots) {
      if (!root) continue;
      for (const path of walk.walks(root)) {
        const { text, variables } = operation(world, kind, path, { q: 'root' });
        const res = await api.graphql(text, variables, { apiKey: world.key });
        expect(res.status).toBeLessThan(500);
        const found = problemsOf(world, res.body);
        asked.push(describePath(path));
        if (found.length > 0) problems[describePath(path)] = found;
      }
    }
    if (schema.subscriptionType) {
      for (const path of walk.walks(schema.subscriptionType.name)) {
        // Since a cursor from before the data was made, so the first value is the first notification.
        const { text, variables } = operation(world, 'subscription', path, { since: world.since });
        // The socket itself refuses a credential without messages.read (security review 2026-11-28
        // #1): the subscription ends with close 4403 before any value, which shows nothing.
        const answer = await firstValue(subscriptionClient(world.key), text, variables).catch(
          (closed: unknown) => closed,
        );
        asked.push(describePath(path));
        if (answer instanceof Object && 'code' in answer && 'reason' in answer) {
          expect({ code: answer.code, reason: answer.reason }).toEqual({
            code: 4403,
            reason: 'insufficient_scope',
          });
          continue;
        }
        const found = problemsOf(world, answer as GqlAnswer);
        if (found.length > 0) problems[describePath(path)] = found;
      }
    }

    // The walk reached the fields of the finding, the plain reads, the post results and the
    // notification payloads (so an empty list of problems means something).
    const expected = [
      'Query.message',
      'Query.message.parent',
      'Query.message.thread',
      'Mutation.setTags.replies',
      'Mutation.setTags.stitchParents',
      'Mutation.setTags.stitchChildren',
      'Mutation.postMessages.message.parent',
      'Mutation.postMessages.message.channels.messages.messages',
      'Query.timeline.messages',
      'Query.channel.messages.messages',
      'Query.notifications.notifications.event.content.messages',
      'Subscription.notifications.event.content.messages',
    ];
    expect(expected.filter((path) => !asked.includes(path))).toEqual([]);
    expect(problems).toEqual({});
  });

  it('when a key without messages.read posts a reply, then the post is made and only its message is refused', async () => {
    const world = await buildWorld();
    const res = await api.graphql<{ postMessages: { ok: boolean; index: number; message: unknown }[] }>(
      'mutation Post($messages: [MessageInput!]!) { postMessages(messages: $messages) { ok index message { id parent { content } } } }',
      { messages: [{ content: 'a write-only reply', parent_id: world.root }] },
      { apiKey: world.key },
    );
    expect(res.status).toBe(200);
    expect(res.body.data?.postMessages).toEqual([{ ok: true, index: 0, message: null }]);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        path: ['postMessages', 0, 'message'],
        extensions: expect.objectContaining({ code: 'insufficient_scope', status: 403 }),
      }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain(world.secret);

    const tree = await api.request<{ ids: string[] }>('GET', `/v1/messages/${world.root}/tree-ids`, {
      token: world.owner.token,
    });
    expect(tree.status).toBe(200);
    expect(tree.body.ids).toHaveLength(3);
  });
});
