// The TypeScript SDK's live side (issue 51 item 4) against a real Skein in the test process: a bot
// handler shows typing with a status and streams its reply with ctx.replyStream() from an async
// iterator; a reader's SkeinSocket({onLive}) sees the typing, the stream grow (StreamView) and its
// end, and the finished reply equals the text; a reader's stop cancels the bot's source and the
// reply records it; an exception in the source posts what was written, marked incomplete.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  SkeinBot,
  SkeinClient,
  SkeinSocket,
  StreamView,
  type BotLogger,
  type LiveFrame,
  type MessageHandler,
  type StreamedReply,
} from '../../sdks/typescript/src/index.js';
import { createManaged, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const silent: BotLogger & { lines: string[] } = {
  lines: [],
  info(message) {
    this.lines.push(message);
  },
  warn(message) {
    this.lines.push(message);
  },
  error(message) {
    this.lines.push(message);
  },
};

/** Runs a bot managed by `manager` with `handler` until `work` is done. */
async function withBot(
  manager: TestUser,
  handler: MessageHandler,
  work: (botUid: string) => Promise<void>,
): Promise<void> {
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  const logger = { ...silent, lines: [] as string[] };
  const running = new SkeinBot({
    url: api.url,
    token: delegated.body.access_token,
    logger,
    handleSignals: false,
    env: {},
  }).onMessage(handler);
  const started = running.start();
  try {
    await waitUntil(() => logger.lines.some((line) => line.startsWith('connected')), 'the bot to connect');
    await work(bot.uid);
  } finally {
    await running.stop();
    await started;
  }
}

/** A reader's socket with live frames, collected. */
async function liveReader(
  user: TestUser,
): Promise<{ frames: LiveFrame[]; view: StreamView; socket: SkeinSocket }> {
  const frames: LiveFrame[] = [];
  const view = new StreamView();
  const socket = new SkeinSocket({
    baseUrl: api.url,
    token: user.token,
    onNotification: () => undefined,
    onLive: (frame) => {
      frames.push(frame);
      view.apply(frame);
    },
  });
  await socket.connect();
  return { frames, view, socket };
}

async function* words(text: string, pauseMs = 5): AsyncGenerator<string> {
  for (const word of text.split(' ')) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    yield `${word} `;
  }
}

describe('ctx.replyStream and typing', () => {
  it('streams a reply word by word to the asker, who sees typing, the text grow and the end', async () => {
    const asker = await registerWriter(api);
    const reader = await liveReader(asker);
    let reply: StreamedReply | undefined;
    try {
      await withBot(
        asker,
        async (_message, ctx) => {
          await ctx.setStatus('thinking');
          reply = await ctx.replyStream(words('graphs are nodes and edges, and more', 30));
        },
        async (botUid) => {
          const question = await new SkeinClient({ baseUrl: api.url, token: asker.token }).post({
            content: 'what are graphs?',
            recipients: [`uid:${botUid}`],
          });
          await waitUntil(() => reply !== undefined, 'the streamed reply');
          expect(reply!.message).toMatchObject({
            content: 'graphs are nodes and edges, and more ',
            parent_id: question.id,
            stream: { ended: 'finished', stopped_by: null },
          });
          await waitUntil(() => reader.frames.some((f) => f.type === 'stream.ended'), 'the end frame');
        },
      );
      const types = reader.frames.map((frame) => frame.type);
      expect(reader.frames.find((f) => f.type === 'typing.started')).toMatchObject({ status: 'thinking' });
      expect(types).toContain('stream.opened');
      expect(types.filter((type) => type === 'stream.appended').length).toBeGreaterThan(1);
      const appended = reader.frames.filter((f) => f.type === 'stream.appended');
      const text = appended.map((f) => f.text as string).join('');
      expect(text).toBe('graphs are nodes and edges, and more ');
      const ended = reader.frames.find((f) => f.type === 'stream.ended');
      expect(ended).toMatchObject({ ended: 'finished', message_id: reply!.message!.id });
    } finally {
      await reader.socket.close();
    }
  });

  it("a reader's stop cancels the bot's source; the reply keeps what was written and who stopped it", async () => {
    const asker = await registerWriter(api);
    const reader = await liveReader(asker);
    let reply: StreamedReply | undefined;
    let aborted = false;
    try {
      await withBot(
        asker,
        async (_message, ctx) => {
          reply = await ctx.replyStream(async function* (signal: AbortSignal) {
            signal.addEventListener('abort', () => (aborted = true));
            for (let i = 0; ; i++) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              yield `word${i} `;
            }
          });
        },
        async (botUid) => {
          await new SkeinClient({ baseUrl: api.url, token: asker.token }).post({
            content: 'talk forever',
            recipients: [`uid:${botUid}`],
          });
          await waitUntil(() => reader.frames.some((f) => f.type === 'stream.appended'), 'the first chunk');
          const streamId = reader.frames.find((f) => f.type === 'stream.opened')!.stream_id as string;
          const stopped = await api.request('POST', `/v1/streams/${streamId}/stop`, { token: asker.token });
          expect(stopped.status).toBe(200);
          await waitUntil(() => reply !== undefined, 'the stopped reply');
        },
      );
      expect(aborted).toBe(true);
      expect(reply!.stream.ended).toBe('stopped');
      expect(reply!.message).toMatchObject({ stream: { ended: 'stopped', stopped_by: { uid: asker.uid } } });
      expect(reply!.message!.content).toMatch(/^word0 /);
    } finally {
      await reader.socket.close();
    }
  });

  it('an exception in the source posts what was written, marked incomplete, and reaches the handler', async () => {
    const asker = await registerWriter(api);
    let reply: StreamedReply | undefined;
    let thrown: unknown;
    await withBot(
      asker,
      async (message, ctx) => {
        try {
          await ctx.replyStream(
            (async function* () {
              yield 'half an ';
              await new Promise((resolve) => setTimeout(resolve, 100));
              throw new Error('model went away');
            })(),
          );
        } catch (error) {
          thrown = error;
          const thread = await ctx.client.request<{ messages: { parent_id: string | null }[] }>(
            'GET',
            `/v1/messages/${message.id}/thread`,
          );
          const written = thread.messages.find((m) => m.parent_id === message.id);
          reply = { stream: {} as StreamedReply['stream'], message: (written ?? null) as never };
        }
      },
      async (botUid) => {
        await new SkeinClient({ baseUrl: api.url, token: asker.token }).post({
          content: 'try',
          recipients: [`uid:${botUid}`],
        });
        await waitUntil(() => reply !== undefined, 'the handler to see the failure');
      },
    );
    expect((thrown as Error).message).toBe('model went away');
    expect(reply!.message).toMatchObject({ content: 'half an ', stream: { ended: 'incomplete' } });
  });
});
