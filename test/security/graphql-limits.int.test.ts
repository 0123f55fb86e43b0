// GraphQL under hostile queries (issue 7, part 2): depth bombs, alias floods, oversized queries,
// directive floods, costly list nesting, fragment cycles, batched operations and huge or deeply
// nested variables are refused by the limits (graphql-armor and the parser's token limit in
// src/platform/graphql/graphql-server.ts, the JSON body limit) with a 4xx and an error that says
// which limit was hit; none is a 5xx or a hang, and the server still answers afterwards.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { GRAPHQL_LIMITS } from '../../src/platform/graphql/graphql-server.js';

interface GraphQLAnswer {
  status: number;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } | null;
  text: string;
}

let api: TestServer;
let writer: TestUser;
let messageId: string;

beforeAll(async () => {
  api = await startTestServer();
  writer = await registerWriter(api);
  messageId = (await postMessage(api, writer.token, { content: 'graphql limits' })).id;
});

afterAll(async () => {
  await api.close();
});

async function post(body: string, contentType = 'application/json'): Promise<GraphQLAnswer> {
  const res = await fetch(`${api.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writer.token}`, 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let parsed: GraphQLAnswer['body'] = null;
  try {
    parsed = JSON.parse(text) as GraphQLAnswer['body'];
  } catch {
    // not JSON: judged below
  }
  return { status: res.status, body: parsed, text };
}

const query = (q: string, variables: Record<string, unknown> = {}) =>
  post(JSON.stringify({ query: q, variables }));

/** Refused before running: a 4xx, no data, and an error message that matches `why`. */
function expectRefused(answer: GraphQLAnswer, why: RegExp): void {
  expect(answer.status).toBeGreaterThanOrEqual(400);
  expect(answer.status).toBeLessThan(500);
  const messages = answer.body?.errors?.map((e) => e.message) ?? [];
  const detail = (answer.body as { detail?: unknown } | null)?.detail;
  expect({
    status: answer.status,
    messages: [...messages, ...(typeof detail === 'string' ? [detail] : [])],
  }).toEqual({
    status: answer.status,
    messages: expect.arrayContaining([expect.stringMatching(why)]),
  });
  expect(answer.body?.data ?? null).toBeNull();
}

describe('GraphQL limits', () => {
  it('when a query nests deeper than the depth limit, then 400 naming the depth', async () => {
    const levels = GRAPHQL_LIMITS.maxDepth + 10;
    const nested = 'parent { '.repeat(levels) + 'id' + ' }'.repeat(levels);
    expectRefused(
      await query(`query($id: String!) { message(message_id: $id) { ${nested} } }`, { id: messageId }),
      /depth/i,
    );
  });

  it('when a depth bomb of 1 000 levels is sent, then 400 and no 5xx', async () => {
    const nested = 'replies { '.repeat(1000) + 'id' + ' }'.repeat(1000);
    const answer = await query(`{ timeline { messages { ${nested} } } }`);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('when a query has more aliases than allowed, then 400 naming the aliases', async () => {
    const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: health`).join(
      ' ',
    );
    expectRefused(await query(`{ ${aliases} }`), /alias/i);
  });

  it('when an alias flood of 2 000 costly fields is sent, then 400 and no 5xx', async () => {
    const aliases = Array.from(
      { length: 2000 },
      (_, i) => `t${i}: timeline(limit: 100) { messages { id } }`,
    ).join(' ');
    const answer = await query(`{ ${aliases} }`);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('when a query has more tokens than allowed, then 400 naming the tokens', async () => {
    const fields = Array.from({ length: GRAPHQL_LIMITS.maxTokens }, () => 'health').join(' ');
    expectRefused(await query(`{ ${fields} }`), /token/i);
  });

  it('when a query has more directives than allowed, then 400 naming the directives', async () => {
    const directives = Array.from(
      { length: GRAPHQL_LIMITS.maxDirectives + 5 },
      () => '@include(if: true)',
    ).join(' ');
    expectRefused(await query(`{ health ${directives} }`), /directive/i);
  });

  it('when a query repeats fields beyond the cost limit (within the token, depth and alias limits), then 400 naming the cost', async () => {
    const fields = Array.from({ length: 1500 }, () => 'id').join(' ');
    expectRefused(await query(`{ timeline { messages { parent { parent { ${fields} } } } } }`), /cost/i);
  });

  it('when fragments spread each other in a cycle, then 400', async () => {
    const answer = await query(
      '{ ...A } fragment A on Query { health ...B } fragment B on Query { health ...A }',
    );
    expectRefused(answer, /cycle|spread|fragment/i);
  });

  it('when a fragment bomb multiplies fields, then it is refused by a limit', async () => {
    const fragments = Array.from(
      { length: 12 },
      (_, i) =>
        `fragment F${i} on Message { ${i === 11 ? 'id' : `parent { ...F${i + 1} } replies { ...F${i + 1} }`} }`,
    ).join(' ');
    const answer = await query(`query($id: String!) { message(message_id: $id) { ...F0 } } ${fragments}`, {
      id: messageId,
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('when operations are sent as a batch, then 4xx in the error shape', async () => {
    const batch = Array.from({ length: 100 }, () => ({ query: '{ health }' }));
    const answer = await post(JSON.stringify(batch));
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('when a variable holds a string over the field limit, then the field is refused with 422 validation_error', async () => {
    const answer = await query('query($q: String!) { searchMessages(q: $q) { messages { id } } }', {
      q: 'a'.repeat(900_000),
    });
    expect(answer.status).toBeLessThan(500);
    expect(answer.body?.data ?? null).toBeNull();
    expect(answer.body?.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
  });

  it('when the variables are larger than the body limit, then 413 payload_too_large', async () => {
    const answer = await query('query($q: String!) { searchMessages(q: $q) { messages { id } } }', {
      q: 'a'.repeat(1_200_000),
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ code: 'payload_too_large', detail: expect.any(String) });
  });

  it('when a variable is nested 10 000 levels deep, then it is refused without a 5xx', async () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const answer = await post(
      `{"query":"mutation($m: [MessageInput!]!) { postMessages(messages: $m) { ok } }","variables":{"m":${deep}}}`,
    );
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body?.data ?? null).toBeNull();
  });

  it('when a variable has thousands of list items of the wrong type, then 4xx without a 5xx', async () => {
    const answer = await query('mutation($m: [MessageInput!]!) { postMessages(messages: $m) { ok } }', {
      m: Array.from({ length: 20_000 }, () => ({ content: 1 })),
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
  });

  it('when the body is not JSON or not a query, then 4xx', async () => {
    for (const [body, type] of [
      ['{"query":', 'application/json'],
      ['{"query": 42}', 'application/json'],
      ['{}', 'application/json'],
      ['query { health }', 'text/plain'],
    ] as const) {
      const answer = await post(body, type);
      expect({ body, status: answer.status >= 400 && answer.status < 500 }).toEqual({ body, status: true });
    }
  });

  it('when a field name is mistyped, then no field suggestion reveals the schema', async () => {
    const answer = await query('{ timelin { messages { id } } }');
    expect(answer.status).toBe(400);
    expect(answer.text).not.toMatch(/did you mean/i);
  });

  it('when all of that has been sent, then the server still answers a normal query', async () => {
    const answer = await query('{ health }');
    expect(answer.status).toBe(200);
    expect(answer.body?.data).toEqual({ health: true });
  });
});
