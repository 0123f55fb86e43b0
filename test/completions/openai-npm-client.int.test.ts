// POST /v1/chat/completions through the official `openai` npm package (issue 54): bots run by the
// TypeScript SDK answer as chat models, and every exchange is an ordinary Skein thread. The client
// is pointed at Skein's /v1 with a Skein API key (sent as `Authorization: Bearer sk_…`) and
// max_retries 0, so each error surfaces as the exception class the client maps its status to.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import OpenAI from 'openai';
import { SkeinBot, type BotLogger, type MessageHandler } from '../../sdks/typescript/src/index.js';
import { createKey, createManaged, grant, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

jest.setTimeout(120_000);

interface Exchange {
  thread_id: string;
  turn_message_id: string;
  reply_message_id: string | null;
}

let api: TestServer;
let asker: TestUser;
let client: OpenAI;
const bots: { stop: () => Promise<void> }[] = [];
let echo: string, streamer: string, contextBot: string, silent: string;
let streamAborted = false;

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs a bot of `manager` with `handler` until the file ends; answers its tag. */
async function runBot(manager: TestUser, handler: MessageHandler, server = api): Promise<string> {
  const bot = await createManaged(server, manager.token, { is_bot: true });
  const delegated = await server.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  const lines: string[] = [];
  const logger: BotLogger = {
    info: (line) => lines.push(line),
    warn: (line) => lines.push(line),
    error: (line) => lines.push(line),
  };
  const running = new SkeinBot({
    url: server.url,
    token: delegated.body.access_token,
    logger,
    handleSignals: false,
    env: {},
  }).onMessage(handler);
  const started = running.start();
  bots.push({
    stop: async () => {
      await running.stop();
      await started;
    },
  });
  await waitUntil(() => lines.some((line) => line.startsWith('connected')), 'the bot to connect');
  return bot.user_tag;
}

/** Reads until `read` answers something (the test's own reads; the service is never polled by itself). */
async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function* words(text: string, delayMs: number, signal?: AbortSignal): AsyncGenerator<string> {
  for (const word of text.split(' ')) {
    if (signal?.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    yield `${word} `;
  }
}

beforeAll(async () => {
  api = await startTestServer({ SKEIN_COMPLETION_TIMEOUT_SECONDS: '30' });
  const manager = await registerWriter(api);
  asker = await registerWriter(api, { apiAccess: true });
  const { key } = await createKey(api, asker.token);
  client = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: key, maxRetries: 0, timeout: 60_000 });
  echo = await runBot(manager, (message, ctx) => ctx.reply(`echo: ${message.content}`));
  streamer = await runBot(manager, async (message, ctx) => {
    const slow = message.content.includes('forever');
    await ctx.replyStream((signal: AbortSignal) => {
      signal.addEventListener('abort', () => (streamAborted = true));
      const text = slow
        ? Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')
        : 'graphs are nodes and edges';
      return words(text, slow ? 50 : 30, signal);
    });
  });
  contextBot = await runBot(manager, async (message, ctx) => {
    const { entries } = await message.context();
    await ctx.reply(entries.map((entry) => `${entry.role}:${entry.content}`).join(' | '));
  });
  silent = (await createManaged(api, manager.token, { is_bot: true })).user_tag;
}, 120_000);

afterAll(async () => {
  await Promise.all(bots.map((bot) => bot.stop()));
  await api?.close();
});

const skein = (answer: object) => (answer as { skein: Exchange }).skein;

describe('POST /v1/chat/completions with the openai npm client', () => {
  it('when a user asks an SDK echo bot, then the answer is a chat.completion holding its reply, posted in Skein', async () => {
    const answer = await client.chat.completions.create({
      model: echo,
      messages: [{ role: 'user', content: 'hello there' }],
      user: 'someone',
      metadata: { purpose: 'test' },
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.model).toBe(echo);
    expect(answer.choices).toHaveLength(1);
    expect(answer.choices[0]).toMatchObject({
      index: 0,
      message: { role: 'assistant', content: 'echo: hello there' },
      finish_reason: 'stop',
    });
    // Skein's rule: runs of letters and digits, and each other visible character.
    expect(answer.usage).toEqual({ prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
    const { turn_message_id, reply_message_id, thread_id } = skein(answer);
    expect(answer.id).toBe(`chatcmpl-${turn_message_id}`);
    const turn = await api.request<{
      content: string;
      author: { uid: string };
      recipients: { user_tag: string }[];
    }>('GET', `/v1/messages/${turn_message_id}`, { token: asker.token });
    expect(turn.body).toMatchObject({ content: 'hello there', author: { uid: asker.uid } });
    expect(turn.body.recipients.map((r) => r.user_tag)).toEqual([echo]);
    const reply = await api.request('GET', `/v1/messages/${reply_message_id}`, { token: asker.token });
    expect(reply.body).toMatchObject({
      content: 'echo: hello there',
      parent_id: turn_message_id,
      root_id: thread_id,
    });
  });

  it('when the content comes as text parts, then they are joined with a newline', async () => {
    const answer = await client.chat.completions.create({
      model: echo,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first' },
            { type: 'text', text: 'second' },
          ],
        },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('echo: first\nsecond');
  });

  it('when max_completion_tokens is below the reply, then the answer is cut there with finish_reason length', async () => {
    const answer = await client.chat.completions.create({
      model: echo,
      messages: [{ role: 'user', content: 'one two three four' }],
      max_completion_tokens: 3,
    });
    expect(answer.choices[0]).toMatchObject({ message: { content: 'echo: one' }, finish_reason: 'length' });
    expect(answer.usage?.completion_tokens).toBe(3);
  });

  it('when stream is true, then chunks follow the streamed reply and end with [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: streamer,
      messages: [{ role: 'user', content: 'what are graphs?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('graphs are nodes and edges ');
    // More than one piece of text: the chunks follow the stream, not the finished message.
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
    const last = chunks.at(-2)!;
    expect(last.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: 5 });
    const replyId = skein(last).reply_message_id!;
    const reply = await api.request('GET', `/v1/messages/${replyId}`, { token: asker.token });
    expect(reply.body).toMatchObject({
      content: 'graphs are nodes and edges ',
      stream: { ended: 'finished' },
    });
  });

  it('when a bot posts its reply whole and stream is true, then the text comes in one chunk', async () => {
    const stream = await client.chat.completions.create({
      model: echo,
      messages: [{ role: 'user', content: 'whole' }],
      stream: true,
    });
    const contents = [];
    for await (const chunk of stream)
      if (chunk.choices[0]?.delta.content) contents.push(chunk.choices[0].delta.content);
    expect(contents).toEqual(['echo: whole']);
  });

  it("when the client leaves mid-stream, then the bot's stream is stopped and its reply records the stop", async () => {
    streamAborted = false;
    const stream = await client.chat.completions.create({
      model: streamer,
      messages: [{ role: 'user', content: 'talk forever' }],
      stream: true,
    });
    let pieces = 0;
    let exchange: Exchange | undefined;
    for await (const chunk of stream) {
      exchange = skein(chunk);
      if (chunk.choices[0]?.delta.content && ++pieces === 2) break; // aborts the request
    }
    await waitUntil(() => streamAborted, "the bot's source to be cancelled");
    const reply = await until(async () => {
      const tree = await api.request<{ ids: string[] }>(
        'GET',
        `/v1/messages/${exchange!.thread_id}/tree-ids`,
        {
          token: asker.token,
        },
      );
      const replyId = tree.body.ids.find((id) => id !== exchange!.turn_message_id);
      if (!replyId) return undefined;
      return (await api.request('GET', `/v1/messages/${replyId}`, { token: asker.token })).body as {
        content: string;
        stream: { ended: string; stopped_by: { uid: string } | null };
      };
    }, 'the stopped reply');
    expect(reply.stream).toMatchObject({ ended: 'stopped', stopped_by: { uid: asker.uid } });
    expect(reply.content).toMatch(/^word0 word1 /);
    expect(reply.content).not.toMatch(/word399/);
  });
});

describe('a conversation of several turns', () => {
  it('when the client re-sends the earlier turns, then three turns land in one thread and the bot reads them in order with their roles', async () => {
    const system = { role: 'system' as const, content: 'answer in one line' };
    const first = await client.chat.completions.create({
      model: contextBot,
      messages: [system, { role: 'user', content: 'one' }],
    });
    const a1 = first.choices[0]!.message.content!;
    expect(a1).toBe('user:answer in one line | user:one');
    const second = await client.chat.completions.create({
      model: contextBot,
      messages: [
        system,
        { role: 'user', content: 'one' },
        { role: 'assistant', content: a1 },
        { role: 'user', content: 'two' },
      ],
    });
    const a2 = second.choices[0]!.message.content!;
    expect(a2).toBe(`user:answer in one line | user:one | assistant:${a1} | user:two`);
    const third = await client.chat.completions.create({
      model: contextBot,
      messages: [
        system,
        { role: 'user', content: 'one' },
        { role: 'assistant', content: a1 },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: a2 },
        { role: 'user', content: 'three' },
      ],
    });
    expect(third.choices[0]!.message.content).toBe(
      `user:answer in one line | user:one | assistant:${a1} | user:two | assistant:${a2} | user:three`,
    );
    const threads = [first, second, third].map((answer) => skein(answer).thread_id);
    expect(new Set(threads).size).toBe(1);
    // One thread: the system prelude, then the turns and replies in one chain.
    const tree = await api.request<{ ids: string[] }>('GET', `/v1/messages/${threads[0]}/tree-ids`, {
      token: asker.token,
    });
    expect(tree.body.ids).toHaveLength(7);
    const prelude = await api.request('GET', `/v1/messages/${threads[0]}`, { token: asker.token });
    expect(prelude.body).toMatchObject({ content: 'answer in one line', tags: ['chat:system'] });
  });

  it('when the sent history is not a thread of Skein, then a new thread starts whose first message writes it out', async () => {
    const answer = await client.chat.completions.create({
      model: contextBot,
      messages: [
        { role: 'user', content: 'few' },
        { role: 'assistant', content: 'shot' },
        { role: 'user', content: 'now' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('user:[user]\nfew\n\n[assistant]\nshot | user:now');
    // The same history again continues that new thread.
    const again = await client.chat.completions.create({
      model: contextBot,
      messages: [
        { role: 'user', content: 'few' },
        { role: 'assistant', content: 'shot' },
        { role: 'user', content: 'now' },
        { role: 'assistant', content: answer.choices[0]!.message.content! },
        { role: 'user', content: 'and then' },
      ],
    });
    expect(skein(again).thread_id).toBe(skein(answer).thread_id);
  });
});

/** The raw answer, to see the whole body beside the client's exception. */
async function raw(body: unknown, key: string, rawBody?: string) {
  const res = await fetch(`${api.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: rawBody ?? JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function failure(request: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await request;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('the request succeeded');
}

async function historyHolds(user: TestUser, content: string, server = api): Promise<boolean> {
  const history = await server.request<{ messages: { content: string }[] }>(
    'GET',
    '/v1/messages/history?limit=100',
    {
      token: user.token,
    },
  );
  return history.body.messages.some((message) => message.content === content);
}

describe('errors an OpenAI client understands', () => {
  it('when the model is unknown, deactivated or banned, then NotFoundError, with both error shapes and nothing posted', async () => {
    const manager = await registerWriter(api);
    const off = await createManaged(api, manager.token, { is_bot: true });
    await api.request('POST', `/v1/managed/users/${off.uid}/deactivate`, { token: manager.token });
    const lostManager = await registerWriter(api);
    const banned = await createManaged(api, lostManager.token, { is_bot: true });
    await grant(api, lostManager.uid, { scopes: [] });
    for (const model of ['no-such-bot-here', `${echo}:v9`, off.user_tag, banned.user_tag, asker.tag]) {
      const content = `refused ${model}`;
      const error = await failure(
        client.chat.completions.create({ model, messages: [{ role: 'user', content }] }),
      );
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect(error).toMatchObject({ status: 404, code: 'model_not_found', type: 'not_found_error' });
      expect(await historyHolds(asker, content)).toBe(false);
    }
    const { key } = await createKey(api, asker.token);
    const answer = await raw({ model: 'no-such-bot-here', messages: [{ role: 'user', content: 'x' }] }, key);
    expect(answer.body).toEqual({
      detail: expect.any(String),
      code: 'model_not_found',
      error: { message: answer.body.detail, type: 'not_found_error', param: null, code: 'model_not_found' },
    });
  });

  it('when the key is wrong, then AuthenticationError', async () => {
    const wrong = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: 'sk_not_a_key', maxRetries: 0 });
    const error = await failure(
      wrong.chat.completions.create({ model: echo, messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.type).toBe('authentication_error');
  });

  it('when the key lacks messages.write, then PermissionDeniedError and nothing posted', async () => {
    const { key } = await createKey(api, asker.token, { scopes_cap: 'messages.read' });
    const reader = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: key, maxRetries: 0 });
    const error = await failure(
      reader.chat.completions.create({
        model: echo,
        messages: [{ role: 'user', content: 'read-only asks' }],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope', type: 'permission_error' });
    expect(await historyHolds(asker, 'read-only asks')).toBe(false);
  });

  it('when the input is bad, then UnprocessableEntityError naming the parameter, or BadRequestError for broken JSON', async () => {
    const cases: [unknown[], string][] = [
      [
        [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ],
        'messages',
      ],
      [
        [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.invalid/a.png' } }] }],
        'messages.0.content',
      ],
      [[{ role: 'tool', content: 'x', tool_call_id: 'a' }], 'messages.0.role'],
      [[], 'messages'],
    ];
    for (const [messages, param] of cases) {
      const error = await failure(
        client.chat.completions.create({
          model: echo,
          messages: messages as OpenAI.ChatCompletionMessageParam[],
        }),
      );
      expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
      expect(error).toMatchObject({ status: 422, code: 'validation_error', type: 'invalid_request_error' });
      expect(error.param).toBe(param);
    }
    const n = await failure(
      client.chat.completions.create({ model: echo, n: 2, messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(n).toMatchObject({ status: 422, param: 'n' });
    const { key } = await createKey(api, asker.token);
    const broken = await raw(undefined, key, '{"model": ');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({
      code: 'invalid_json',
      error: { type: 'invalid_request_error', code: 'invalid_json' },
    });
  });

  it('when too many completions are open, then RateLimitError with Retry-After; when the bot is silent, then a 504 and the turn is taken back', async () => {
    const strict = await startTestServer({
      SKEIN_COMPLETION_TIMEOUT_SECONDS: '3',
      SKEIN_MAX_OPEN_COMPLETIONS_PER_USER: '1',
    });
    try {
      const { key } = await createKey(api, asker.token);
      const openai = new OpenAI({ baseURL: `${strict.url}/v1`, apiKey: key, maxRetries: 0 });
      const waiting = failure(
        openai.chat.completions.create({
          model: silent,
          messages: [{ role: 'user', content: 'anyone there?' }],
        }),
      );
      await until(
        async () => ((await historyHolds(asker, 'anyone there?', strict)) ? true : undefined),
        'the first turn',
      );
      const limited = await failure(
        openai.chat.completions.create({ model: silent, messages: [{ role: 'user', content: 'me too' }] }),
      );
      expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
      expect(limited).toMatchObject({ status: 429, code: 'rate_limited', type: 'rate_limit_error' });
      expect(Number(limited.headers?.get('retry-after'))).toBeGreaterThan(0);
      const timedOut = await waiting;
      expect(timedOut).toBeInstanceOf(OpenAI.InternalServerError);
      expect(timedOut).toMatchObject({ status: 504, code: 'completion_timeout', type: 'timeout_error' });
      expect(timedOut.headers?.get('x-should-retry')).toBe('false');
      expect(await historyHolds(asker, 'anyone there?', strict)).toBe(false);
      expect(await historyHolds(asker, 'me too', strict)).toBe(false);
    } finally {
      await strict.close();
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The streamed answer's text and how it ended: its finish_reason, or the error the client raised. */
async function readStream(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
  onText: (text: string) => unknown = () => undefined,
): Promise<{ text: string; finish: string | null; error: InstanceType<typeof OpenAI.APIError> | null }> {
  let text = '';
  let finish: string | null = null;
  try {
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        text += piece;
        await onText(text);
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return { text, finish, error };
  }
  return { text, finish, error: null };
}

describe('what one request may post', () => {
  it('when a request would post more than 100 messages, then UnprocessableEntityError naming messages and nothing is posted', async () => {
    const user = await registerWriter(api);
    const openai = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: user.token, maxRetries: 0 });
    const messages = Array.from({ length: 101 }, (_, i) => ({ role: 'user' as const, content: `over ${i}` }));
    const error = await failure(openai.chat.completions.create({ model: echo, messages }));
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(error).toMatchObject({ status: 422, code: 'validation_error', param: 'messages' });
    expect(await historyHolds(user, 'over 0')).toBe(false);
    expect(await historyHolds(user, 'over 100')).toBe(false);
  });

  it('when a request posts more messages than the post limit has left, then RateLimitError with Retry-After and nothing posted, while one turn passes', async () => {
    const limited = await startTestServer({
      SKEIN_RATE_LIMIT_POSTS_PER_MIN: '3',
      SKEIN_COMPLETION_TIMEOUT_SECONDS: '1',
    });
    try {
      const [user, other] = await Promise.all([registerWriter(limited), registerWriter(limited)]);
      const openai = (who: TestUser) =>
        new OpenAI({ baseURL: `${limited.url}/v1`, apiKey: who.token, maxRetries: 0 });
      const turns = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => ({ role: 'user' as const, content: `${tag} ${i}` }));
      // Four user turns are four messages: more than the three points a minute allows.
      const many = await failure(
        openai(user).chat.completions.create({ model: silent, messages: turns(4, 'many') }),
      );
      expect(many).toBeInstanceOf(OpenAI.RateLimitError);
      expect(many).toMatchObject({ status: 429, code: 'rate_limited', type: 'rate_limit_error' });
      expect(Number(many.headers?.get('retry-after'))).toBeGreaterThan(0);
      expect(await historyHolds(user, 'many 0', limited)).toBe(false);
      // Three turns and the first message holding the system text are four messages too.
      const prelude = await failure(
        openai(other).chat.completions.create({
          model: silent,
          messages: [{ role: 'system', content: 'be brief' }, ...turns(3, 'prelude')],
        }),
      );
      expect(prelude).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(await historyHolds(other, 'prelude 0', limited)).toBe(false);
      // One turn fits: it is posted, and the silent bot's timeout (not the limit) ends it.
      const one = await failure(
        openai(user).chat.completions.create({ model: silent, messages: turns(1, 'one') }),
      );
      expect(one).toMatchObject({ status: 504, code: 'completion_timeout' });
    } finally {
      await limited.close();
    }
  });
});

describe('which bots answer as models', () => {
  it('when a bot holds messages.read but not messages.write, then it stays listed and a completion is NotFoundError', async () => {
    const manager = await registerWriter(api);
    const mute = await createManaged(api, manager.token, { is_bot: true });
    const listed = async () => {
      const models = await api.request<{ data: { id: string }[] }>('GET', '/v1/models', {
        token: asker.token,
      });
      return models.body.data.map((model) => model.id);
    };
    expect(await listed()).toContain(mute.user_tag);
    await grant(api, mute.uid, { scopes: ['messages.read'] });
    expect(await listed()).toContain(mute.user_tag);
    const error = await failure(
      client.chat.completions.create({
        model: mute.user_tag,
        messages: [{ role: 'user', content: 'mute?' }],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found' });
    expect(await historyHolds(asker, 'mute?')).toBe(false);
  });
});

describe('a streamed reply abandoned after the timeout has passed', () => {
  let quick: TestServer;
  let vanisher: string;
  let openai: OpenAI;

  beforeAll(async () => {
    // The stream outlives the completion's 2 s timeout, then goes silent and is abandoned 1 s later.
    quick = await startTestServer({ SKEIN_STREAM_IDLE_SECONDS: '1', SKEIN_COMPLETION_TIMEOUT_SECONDS: '2' });
    const manager = await registerWriter(quick);
    vanisher = await runBot(
      manager,
      async (message, ctx) => {
        const { stream_id } = await ctx.client.request<{ stream_id: string }>('POST', '/v1/streams', {
          content: '',
          parent_id: message.id,
          audience: 'parent',
        });
        let text = '';
        for (let seq = 1; seq <= 8; seq++) {
          text += `w${seq} `;
          await ctx.client.request('POST', `/v1/streams/${stream_id}/chunks`, { seq, text: `w${seq} ` });
          await sleep(400);
        }
        // The writer vanishes: no append, no finish, until the service ends the stream abandoned.
        for (;;) {
          const stream = await ctx.client.request<{ ended: string | null }>(
            'GET',
            `/v1/streams/${stream_id}`,
          );
          if (stream.ended === 'abandoned') break;
          await sleep(100);
        }
        // As the SDKs do after a lost stream: what was written, posted as a plain reply.
        if (message.content.includes('answer after all')) await ctx.reply(text);
      },
      quick,
    );
    const { key } = await createKey(quick, asker.token);
    openai = new OpenAI({ baseURL: `${quick.url}/v1`, apiKey: key, maxRetries: 0, timeout: 60_000 });
  }, 60_000);

  afterAll(async () => {
    await quick?.close();
  });

  it('when the bot then posts its reply, then the client gets the whole answer (the wait restarts at the abandonment)', async () => {
    const stream = await openai.chat.completions.create({
      model: vanisher,
      messages: [{ role: 'user', content: 'stream, vanish, then answer after all' }],
      stream: true,
    });
    const read = await readStream(stream);
    expect(read.error).toBeNull();
    expect(read).toMatchObject({ text: 'w1 w2 w3 w4 w5 w6 w7 w8 ', finish: 'stop' });
  });

  it('when nothing follows, then the stream ends with completion_timeout and the turn stays, as the client holds text', async () => {
    const content = 'stream, then vanish for good';
    const stream = await openai.chat.completions.create({
      model: vanisher,
      messages: [{ role: 'user', content }],
      stream: true,
    });
    const read = await readStream(stream);
    expect(read.text).toBe('w1 w2 w3 w4 w5 w6 w7 w8 ');
    expect(read.error).toMatchObject({ code: 'completion_timeout', type: 'timeout_error' });
    expect(await historyHolds(asker, content, quick)).toBe(true);
  });
});

describe("the caller's credential while the answer streams", () => {
  it('when the API key is revoked mid-stream, then the stream ends with an error and no text written after the revocation', async () => {
    let revoked = false;
    const manager = await registerWriter(api);
    const revocable = await runBot(manager, (_message, ctx) =>
      ctx.replyStream(async function* () {
        for (let i = 0; !revoked && i < 300; i++) {
          await sleep(50);
          yield `w${i} `;
        }
        for (let i = 1; i <= 5; i++) {
          await sleep(50);
          yield `after${i} `;
        }
      }),
    );
    const { key, key_id } = await createKey(api, asker.token);
    const openai = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: key, maxRetries: 0, timeout: 60_000 });
    const stream = await openai.chat.completions.create({
      model: revocable,
      messages: [{ role: 'user', content: 'keep talking' }],
      stream: true,
    });
    const read = await readStream(stream, async (text) => {
      if (revoked || !text.includes('w2 ')) return;
      const res = await api.request('DELETE', `/v1/auth/keys/${key_id}`, { token: asker.token });
      expect(res.status).toBe(200);
      revoked = true;
    });
    expect(revoked).toBe(true);
    expect(read.error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error' });
    expect(read.text).not.toContain('after');
    expect(read.text).not.toContain('w299');
  });
});
