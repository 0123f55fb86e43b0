// The completions workload (issue 54, decision 033): what POST /v1/chat/completions adds over what
// a client does without it, posting to a bot and waiting for the reply on its socket, with the same
// bot on both sides. The bot lives in this process on a plain socket (no SDK), replying to each
// message with its text through POST /v1/messages, so both sides pay the same bot.
//  1. latency: alternately, one exchange at a time, a post + the reply's `sent` frame on the asker's
//     socket, and a non-streamed completion; p50 and p99 of each, and the difference of the p50s;
//  2. held open: `held` completions at once to the same bot, which holds its replies until all are
//     waiting; the service's heap and RSS before and while they wait, and its CPU over a quiet
//     second while they wait (no polling: about nothing).
import type WebSocket from 'ws';
import type { Api } from './api.js';
import { cpuMs, rssMiB } from './processes.js';
import { monotonicMs, openListener, sleep } from './realtime.js';
import { percentile } from './stats.js';

export interface CompletionsSetup {
  api: Api;
  serviceUrl: string;
  servicePid: number;
  /** Reads the service's V8 heap in use, MiB (its /metrics). */
  heapMiB: () => Promise<number>;
  /** Who asks: a session that may write. */
  askerToken: string;
  /** A session of a bot the asker may write to, and its tag. */
  botToken: string;
  botTag: string;
  samples: number;
  held: number;
}

export interface CompletionsResult {
  socket: number[];
  completion: number[];
  held: {
    count: number;
    heapBefore: number;
    heapDuring: number;
    rssBefore: number;
    rssDuring: number;
    cpuMsPerSecond: number;
  };
  failures: string[];
}

interface SentFrame {
  type?: string;
  event?: {
    type?: string;
    content?: { messages?: { id: string; content: string; parent_id: string | null }[] };
  };
}

const socketUrl = (serviceUrl: string, token: string) =>
  `${serviceUrl.replace(/^http/, 'ws')}/v1/ws/v1?access_token=${encodeURIComponent(token)}`;

export async function measureCompletions(setup: CompletionsSetup): Promise<CompletionsResult> {
  const { api } = setup;
  const failures: string[] = [];
  let holding = false;
  const heldReplies: (() => Promise<void>)[] = [];
  const reply = (message: { id: string; content: string }) => () =>
    api
      .post(setup.botToken, {
        content: `echo: ${message.content}`,
        parent_id: message.id,
        audience: 'parent',
      })
      .then(() => undefined)
      .catch((error: unknown) => void failures.push(`the bench bot's reply failed: ${String(error)}`));
  const bot = openListener(
    socketUrl(setup.serviceUrl, setup.botToken),
    {
      onFrame: (_at, _bytes, frame) => {
        const { event } = frame as SentFrame;
        if (event?.type !== 'sent') return;
        for (const message of event.content?.messages ?? []) {
          const send = reply(message);
          if (holding) heldReplies.push(send);
          else void send();
        }
      },
    },
    true,
  );
  const waitingForReply = new Map<string, (at: number) => void>();
  const asker = openListener(
    socketUrl(setup.serviceUrl, setup.askerToken),
    {
      onFrame: (at, _bytes, frame) => {
        const { event } = frame as SentFrame;
        if (event?.type !== 'sent') return;
        for (const message of event.content?.messages ?? [])
          if (message.parent_id) waitingForReply.get(message.parent_id)?.(at);
      },
    },
    true,
  );
  await Promise.all([bot.ready, asker.ready]);
  try {
    const socket: number[] = [];
    const completion: number[] = [];
    const viaSocket = async (i: number) => {
      const start = monotonicMs();
      const [posted] = await api.post(setup.askerToken, {
        content: `question ${i}`,
        recipients: [setup.botTag],
      });
      const replied = await new Promise<number>((resolve) => waitingForReply.set(posted!.id, resolve));
      waitingForReply.delete(posted!.id);
      return replied - start;
    };
    const viaCompletion = async (i: number) => {
      const start = monotonicMs();
      const answer = await api.call<{ choices: { message: { content: string } }[] }>(
        'POST',
        '/v1/chat/completions',
        {
          token: setup.askerToken,
          body: { model: setup.botTag, messages: [{ role: 'user', content: `question ${i}` }] },
        },
      );
      if (answer.choices[0]?.message.content !== `echo: question ${i}`)
        failures.push(`completion ${i} answered ${JSON.stringify(answer).slice(0, 200)}`);
      return monotonicMs() - start;
    };
    // Warm-up, then alternate so that a drift of the machine's load weighs on both alike.
    for (let i = 0; i < 3; i++) {
      await viaSocket(-i);
      await viaCompletion(-i);
    }
    for (let i = 0; i < setup.samples; i++) {
      if (i % 2 === 0) {
        socket.push(await viaSocket(i));
        completion.push(await viaCompletion(i));
      } else {
        completion.push(await viaCompletion(i));
        socket.push(await viaSocket(i));
      }
    }

    // Held open: the bot keeps its replies until every completion waits.
    const heapBefore = await setup.heapMiB();
    const rssBefore = rssMiB(setup.servicePid);
    holding = true;
    const answers = Array.from({ length: setup.held }, (_, i) =>
      api.call('POST', '/v1/chat/completions', {
        token: setup.askerToken,
        body: { model: setup.botTag, messages: [{ role: 'user', content: `held ${i}` }] },
      }),
    );
    const deadline = Date.now() + 120_000;
    while (heldReplies.length < setup.held && Date.now() < deadline) await sleep(50);
    if (heldReplies.length < setup.held)
      failures.push(`only ${heldReplies.length} of ${setup.held} held turns reached the bot`);
    await sleep(1000);
    const cpuFrom = cpuMs(setup.servicePid);
    const quietFrom = monotonicMs();
    await sleep(2000);
    const cpuMsPerSecond = ((cpuMs(setup.servicePid) - cpuFrom) / (monotonicMs() - quietFrom)) * 1000;
    const heapDuring = await setup.heapMiB();
    const rssDuring = rssMiB(setup.servicePid);
    holding = false;
    await Promise.all(heldReplies.splice(0).map((send) => send()));
    const settled = await Promise.allSettled(answers);
    const refused = settled.filter((s) => s.status === 'rejected');
    if (refused.length > 0)
      failures.push(
        `${refused.length} held completions failed: ${String((refused[0] as PromiseRejectedResult).reason)}`,
      );
    return {
      socket,
      completion,
      held: { count: setup.held, heapBefore, heapDuring, rssBefore, rssDuring, cpuMsPerSecond },
      failures,
    };
  } finally {
    for (const ws of [bot.ws, asker.ws] as WebSocket[]) ws.close();
  }
}

export const p50 = (samples: number[]) => percentile(samples, 50);
export const p99 = (samples: number[]) => percentile(samples, 99);
