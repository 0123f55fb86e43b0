// A bot's run loop: one object that takes credentials (options or the environment), hands each new
// message addressed to the bot to your handler with a reply() that keeps the audience, and keeps
// going: over the notification socket it reconnects forever with back-off and resumes from the last
// cursor it handled (optionally kept in a file, so a restarted bot neither loses nor repeats
// anything), runs at most `concurrency` handlers at once, and stops cleanly on SIGINT/SIGTERM. The
// same handler can run behind a webhook endpoint instead (webhook()).
//
//   const bot = new SkeinBot();          // SKEIN_URL, SKEIN_TOKEN or SKEIN_API_KEY, SKEIN_CURSOR_FILE
//   bot.onMessage((message, ctx) => ctx.reply(`echo: ${message.content}`));
//   await bot.start();                   // runs until SIGINT/SIGTERM or stop()
//
// `await message.context()` gives the handler the conversation the message belongs to (the context
// read, GET /v1/messages/{id}/context, as the bot may see it), once per message: taken from the event
// when the bot asked Skein to send it along (`includeContext`), else read with one call.
import { Backoff, pauseUntilReady } from './backoff.js';
import {
  MessageRejected,
  SkeinClient,
  SkeinError,
  type ConversationContext,
  type MessageInput,
  type MessageOutput,
} from './client.js';
import type { components } from './generated/openapi.js';
import { environment } from './dotenv.js';
import { CursorFile, HandledCursor } from './handled-cursor.js';
import { npmLauncherPid, watchProcess } from './launcher-watch.js';
import { keepTyping, streamReply, type StreamedReply, type TextSource } from './live-reply.js';
import { Slots } from './slots.js';
import { SkeinSocket, SocketRefusedError, type NotificationFrame, type ReadyFrame } from './socket.js';
import { createWebhookListener, type WebhookRequestListener } from './webhook-listener.js';
import type { WebhookEvent } from './webhooks.js';

/** A message as events carry it: `id`, `content`, `parent_id`, `author` (`uid`, `user_tag`). */
export type EventMessage = components['schemas']['EventMessage'];

/** A message as the handler gets it: the event's message, and its conversation on request. */
export interface BotMessage extends EventMessage {
  /**
   * The conversation this message belongs to, as the bot may see it (GET /v1/messages/{id}/context
   * with its default bounds): the bot's starting context when it has a `context_origin_id`, the
   * reply ancestors from the root down, then the message; each entry with `role` `assistant` (the
   * bot's own) or `user`, ready for a chat-model prompt. Read once per message and kept: from the
   * event itself when it carries `message_context` (`includeContext`), else with one call (retried
   * like a reply while Skein cannot answer; a failed read is tried again on the next call).
   */
  context(): Promise<ConversationContext>;
}
/** The event types that carry messages for the bot (spec "Webhook notifications"). */
export type BotEventType = WebhookEvent['type'];

export interface MessageContext {
  /** Why the message came: `sent` (addressed to the bot), `ping`, `added` or `channels`. */
  type: BotEventType;
  /** The whole event: every message of it and `content.context`, the thread's ancestors, root first. */
  event: WebhookEvent;
  /** The bot's own uid. */
  botUid: string;
  /** A client signed in as the bot, for anything beyond a reply. */
  client: SkeinClient;
  /**
   * Replies to the message with `"audience": "parent"`: its author, its CC recipients and its
   * channels see the reply. Failures that time may cure (the service restarting, 429, 5xx) are
   * tried again under one idempotency key, so a retry (or a repeat after a crash) never posts twice.
   */
  reply(
    content: string,
    extra?: Omit<MessageInput, 'content' | 'parent_id' | 'audience'>,
  ): Promise<MessageOutput>;
  /**
   * Replies with text that streams in as `source` yields it (a model client's streamed answer, or
   * a function of an AbortSignal that answers one): readers see it grow, may stop it, and the
   * chunks joined become one ordinary reply with the same audience as reply(). A reader's stop
   * cancels the source (its iterator's return() and the signal) and posts what was written; an
   * exception from the source posts it marked incomplete and is thrown again.
   */
  replyStream(
    source: TextSource,
    extra?: Omit<MessageInput, 'content' | 'parent_id' | 'audience'>,
  ): Promise<StreamedReply>;
  /** Shows a one-line status while the handler works, such as "searching the docs…" (at most 64 characters). */
  setStatus(status: string): Promise<void>;
}

/** What the bot does with each message; a returned promise holds the handler's slot until it settles. */
export type MessageHandler = (message: BotMessage, ctx: MessageContext) => unknown;

export interface BotLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export interface BotOptions {
  /** The service's base URL. Default: SKEIN_URL, else http://localhost:8080. */
  url?: string | undefined;
  /** A session token of the bot (a delegated session, `svc_session_…`). Default: SKEIN_TOKEN. */
  token?: string | undefined;
  /** An API key of the bot (`sk_…`), used when there is no token. Default: SKEIN_API_KEY. */
  apiKey?: string | undefined;
  /**
   * A file that keeps the cursor of the last event handled, so that a restart resumes after it.
   * Default: SKEIN_CURSOR_FILE; without one a start begins at "now".
   */
  cursorFile?: string | undefined;
  /** The `whsec_` secret that signs webhook deliveries (webhook mode). Default: SKEIN_WEBHOOK_SECRET. */
  webhookSecret?: string | undefined;
  /** How many handlers may run at once. Default 4. */
  concurrency?: number | undefined;
  /** The event types whose messages reach the handler. Default `['sent', 'ping']`, the spec's "reply" ones. */
  events?: readonly BotEventType[] | undefined;
  /**
   * Ask Skein to send each message's conversation context with the event, so `message.context()`
   * needs no call: the socket connects with `?include_context=true`, and registerEndpoint() turns on
   * the endpoint's `include_context`. Default false: payloads stay small, and `context()` reads the
   * context with one call when the handler asks for it.
   */
  includeContext?: boolean | undefined;
  /**
   * Show "typing" on the message while its handler runs (from 300 ms on, renewed every 4 s; the
   * reply ends it). Default true; false turns it off (setStatus still shows a status).
   */
  typing?: boolean | undefined;
  /** The first wait before reconnecting. Default 500 ms. */
  reconnectDelayMs?: number | undefined;
  /** The longest wait between reconnects (it doubles up to it, with jitter). Default 30 s. */
  maxReconnectDelayMs?: number | undefined;
  /** Stop cleanly on SIGINT and SIGTERM while start() runs (a second signal ends at once). Default true. */
  handleSignals?: boolean | undefined;
  /** Where the bot reports what it does; false for silence. Default: the console. */
  logger?: BotLogger | false | undefined;
  /**
   * The environment the defaults come from. Default: process.env over the variables of `./.env`
   * (what `npx skein-sdk bot create` writes), so a variable set in the shell wins over the file.
   */
  env?: Record<string, string | undefined> | undefined;
  fetch?: typeof fetch | undefined;
}

/** start() was refused by the service for good (bad credentials, a missing scope): fix, then restart. */
export class BotRefusedError extends Error {
  constructor(readonly refusal: SocketRefusedError) {
    super(`the service refused the bot: ${refusal.message}`, { cause: refusal });
    this.name = 'BotRefusedError';
  }
}

const consoleLogger: BotLogger = {
  info: (message) => console.log(`[skein-bot] ${message}`),
  warn: (message) => console.warn(`[skein-bot] ${message}`),
  error: (message, error) => console.error(`[skein-bot] ${message}`, ...(error === undefined ? [] : [error])),
};
const silentLogger: BotLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The outcome of one handler run: `abandoned` when a stop cut its retries short (to be repeated). */
type Outcome = 'handled' | 'abandoned';

export class SkeinBot {
  /** A client signed in as the bot. */
  readonly client: SkeinClient;
  private readonly url: string;
  private readonly token: string | undefined;
  private readonly apiKey: string | undefined;
  private readonly cursorPath: string | undefined;
  private webhookSecret: string | undefined;
  private readonly events: ReadonlySet<BotEventType>;
  private readonly slots: Slots;
  private readonly log: BotLogger;
  private handler: MessageHandler | undefined;
  private socket: SkeinSocket | undefined;
  private handled: HandledCursor | undefined;
  private uid: string | undefined;
  /** Each event's work, from its arrival until its handlers finished. */
  private readonly inflight = new Set<Promise<void>>();
  /** Aborted by stop(): waits between reply retries end at once. */
  private readonly stopping = new AbortController();
  private stopped: Promise<void> | undefined;
  private started = false;
  private settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private removeSignalHandlers: (() => void) | undefined;

  constructor(private readonly options: BotOptions = {}) {
    const env = options.env ?? environment();
    this.url = options.url ?? env.SKEIN_URL ?? 'http://localhost:8080';
    this.token = options.token ?? (env.SKEIN_TOKEN || undefined);
    this.apiKey = options.apiKey ?? (env.SKEIN_API_KEY || undefined);
    this.cursorPath = options.cursorFile ?? (env.SKEIN_CURSOR_FILE || undefined);
    this.webhookSecret = options.webhookSecret ?? (env.SKEIN_WEBHOOK_SECRET || undefined);
    this.events = new Set(options.events ?? ['sent', 'ping']);
    this.slots = new Slots(options.concurrency ?? 4);
    this.log = options.logger === false ? silentLogger : (options.logger ?? consoleLogger);
    this.client = new SkeinClient({
      baseUrl: this.url,
      token: this.token,
      apiKey: this.apiKey,
      fetch: options.fetch,
    });
  }

  /** Sets the handler of each new message addressed to the bot (never the bot's own). */
  onMessage(handler: MessageHandler): this {
    this.handler = handler;
    return this;
  }

  /**
   * Runs the bot over the notification socket until stop(), SIGINT or SIGTERM: resolves once it has
   * stopped (running handlers finished, cursor stored). Rejects with BotRefusedError when the service
   * refuses the credentials for good (close 4400/4401/4403); anything else is retried forever.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('this bot was already started');
    if (!this.handler) throw new Error('call bot.onMessage(handler) before bot.start()');
    this.assertCredentials();
    this.started = true;
    const file = this.cursorPath
      ? new CursorFile(this.cursorPath, (error) => this.log.error('could not store the cursor', error))
      : undefined;
    const since = await file?.read();
    this.handled = new HandledCursor(since, file);
    const ended = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    if (this.options.handleSignals ?? true) {
      this.installSignalHandlers();
      this.watchLauncher();
    }
    this.socket = new SkeinSocket({
      baseUrl: this.url,
      token: this.token,
      apiKey: this.apiKey,
      since,
      includeContext: this.options.includeContext,
      reconnectDelayMs: this.options.reconnectDelayMs,
      maxReconnectDelayMs: this.options.maxReconnectDelayMs,
      onNotification: (frame) => this.accept(frame),
      onReady: (frame) => this.ready(frame, since),
      onError: (error) => this.socketTrouble(error),
      onDisconnect: (code, reason) =>
        this.log.warn(`connection lost (${code}${reason ? ` ${reason}` : ''}); reconnecting with back-off`),
    });
    this.socket.connect({ retry: true }).catch((error: unknown) => this.socketTrouble(error as Error));
    return ended;
  }

  /** Stops taking events, lets running handlers finish, stores the cursor and closes the socket. */
  stop(): Promise<void> {
    return this.shutdown(undefined);
  }

  /**
   * The same handler behind a webhook endpoint: a request listener for `http.createServer()` or an
   * Express route (mount it before any JSON body parser). It answers endpoint verification, checks
   * signatures with the `whsec_` secret (`webhookSecret`, SKEIN_WEBHOOK_SECRET or registerEndpoint()),
   * answers each delivery 200 first and then runs the handler, within the same concurrency bound.
   */
  webhook(): WebhookRequestListener {
    if (!this.handler) throw new Error('call bot.onMessage(handler) before bot.webhook()');
    this.assertCredentials();
    return createWebhookListener({
      secret: () => this.webhookSecret,
      deliver: (event, webhookId) => this.deliverWebhook(event, webhookId),
      warn: (message) => this.log.warn(message),
    });
  }

  /**
   * Proves `url` (where webhook() is served) as the bot's endpoint, POST /v1/auth/contacts/endpoint/
   * request then /verify, and keeps the signing secret it answers. The listener must be reachable.
   * With `includeContext` it then turns on the endpoint's `include_context` (PATCH
   * /v1/managed/users/{uid}/endpoint), so deliveries carry each message's context.
   */
  async registerEndpoint(url: string): Promise<string> {
    await this.client.request('POST', '/v1/auth/contacts/endpoint/request', { url });
    const verified = await this.client.request<{ secret: string }>(
      'POST',
      '/v1/auth/contacts/endpoint/verify',
      { url },
    );
    this.webhookSecret = verified.secret;
    if (this.options.includeContext) {
      this.uid ??= (await this.client.me()).uid;
      await this.client.setEndpointOptions(this.uid, { include_context: true });
    }
    return verified.secret;
  }

  private assertCredentials(): void {
    if (!this.token && !this.apiKey) {
      throw new Error(
        'no credentials: run `npx skein-sdk bot create <bot-tag>` here (it writes SKEIN_API_KEY to .env), ' +
          'or set SKEIN_API_KEY or SKEIN_TOKEN (a session of the bot, e.g. from POST /v1/managed/auth/delegate), ' +
          'or pass apiKey or token',
      );
    }
  }

  private ready(frame: ReadyFrame, since: string | undefined): void {
    const first = this.uid === undefined;
    this.uid = frame.uid;
    this.handled?.startAt(frame.cursor);
    if (first) {
      const from = since ? 'resuming from the stored cursor' : 'starting now';
      this.log.info(`connected to ${this.url} as uid ${frame.uid}, ${from}`);
    } else {
      this.log.info('reconnected; missed events follow');
    }
  }

  private socketTrouble(error: Error): void {
    if (error instanceof SocketRefusedError) {
      void this.shutdown(new BotRefusedError(error));
      return;
    }
    if (this.stopped) return;
    this.log.warn(`${error.message}; trying again with back-off`);
  }

  /**
   * Takes one notification: its messages for the handler get slots in arrival order, and the socket
   * hands over the next frame once they all have one (so at most `concurrency` run). The event counts
   * as handled, for the cursor, once all of them finished.
   */
  private accept(frame: NotificationFrame): Promise<void> {
    const handled = this.handled;
    if (this.stopped || !handled) return Promise.resolve();
    const entry = handled.begin(frame.cursor);
    const messages = this.messagesFor(frame.event);
    let accepted!: () => void;
    const taken = new Promise<void>((resolve) => (accepted = resolve));
    this.track(
      (async () => {
        const runs: Promise<Outcome>[] = [];
        let complete = true;
        for (const message of messages) {
          if (!(await this.slots.acquire())) {
            complete = false;
            break;
          }
          runs.push(this.run(message, frame.event as WebhookEvent, frame.cursor));
        }
        accepted();
        const outcomes = await Promise.all(runs);
        if (complete && outcomes.every((outcome) => outcome === 'handled')) handled.finish(entry);
      })(),
    );
    return taken;
  }

  private deliverWebhook(event: WebhookEvent, webhookId: string): boolean {
    if (this.stopped || this.slots.isClosed) return false;
    this.uid ??= event.recipient_uid;
    const messages = this.messagesFor(event);
    this.track(
      (async () => {
        const runs: Promise<Outcome>[] = [];
        for (const message of messages) {
          if (!(await this.slots.acquire())) break;
          runs.push(this.run(message, event, webhookId));
        }
        await Promise.all(runs);
      })(),
    );
    return true;
  }

  /** The event's messages the handler should see: wanted event types, never the bot's own. */
  private messagesFor(event: NotificationFrame['event']): EventMessage[] {
    if (!this.events.has(event.type as BotEventType)) return [];
    const { messages } = (event as WebhookEvent).content;
    const own = this.uid ?? event.recipient_uid;
    return messages.filter((message) => message.author.uid !== own);
  }

  /** Runs the handler on one message in a slot it already holds, and gives the slot back. */
  private async run(received: EventMessage, event: WebhookEvent, eventKey: string): Promise<Outcome> {
    const message = this.botMessage(received);
    let replies = 0;
    let abandoned = false;
    const typing = keepTyping(this.client, message.id, {
      delayMs: this.options.typing === false ? null : 300,
    });
    const ctx: MessageContext = {
      type: event.type,
      event,
      botUid: this.uid ?? event.recipient_uid,
      client: this.client,
      reply: async (content, extra = {}) => {
        replies += 1;
        // The same key for the same reply of the same event: a retry, or a repeat after a crash
        // that came before the cursor was stored, answers the first reply instead of posting again.
        const idempotencyKey = `skein-bot:${eventKey}:${message.id}:${replies}`;
        try {
          return await this.withRetries(() => this.client.reply(message, content, extra, { idempotencyKey }));
        } catch (error) {
          if (this.stopping.signal.aborted && transient(error)) abandoned = true;
          throw error;
        }
      },
      replyStream: (source, extra = {}) =>
        streamReply(this.client, message.id, source, extra, { signal: this.stopping.signal }),
      setStatus: (status) => typing.setStatus(status),
    };
    try {
      await this.handler!(message, ctx);
    } catch (error) {
      if (!abandoned) this.log.error(`the handler failed on message ${message.id}`, error);
    } finally {
      await typing.stop();
      this.slots.release();
    }
    return abandoned ? 'abandoned' : 'handled';
  }

  /** The handler's message: the event's, with context() read at most once (while it succeeds). */
  private botMessage(received: EventMessage): BotMessage {
    let read: Promise<ConversationContext> | undefined;
    return {
      ...received,
      context: () => {
        if (read) return read;
        const carried = received.message_context;
        const reading = carried
          ? Promise.resolve(carried)
          : this.withRetries(() => this.client.messageContext(received.id));
        read = reading;
        // A failed read is not kept (the caller gets its rejection): the next call reads again.
        reading.catch(() => {
          if (read === reading) read = undefined;
        });
        return reading;
      },
    };
  }

  /** Calls `send` until it succeeds, fails for good, or the bot stops (about two minutes at most). */
  private async withRetries<T>(send: () => Promise<T>): Promise<T> {
    const backoff = new Backoff({ initialDelayMs: 500, maxDelayMs: 30_000 });
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await send();
      } catch (error) {
        if (attempt >= 8 || !transient(error) || this.stopping.signal.aborted) throw error;
        await pauseUntilReady(backoff.next(), {
          baseUrl: this.url,
          down: away(error),
          signal: this.stopping.signal,
          fetch: this.options.fetch,
        });
      }
    }
  }

  private track(work: Promise<void>): void {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work));
  }

  private shutdown(error: Error | undefined): Promise<void> {
    this.stopped ??= (async () => {
      this.slots.close();
      // Replies waiting to retry give up now; their events stay below the stored cursor, so the
      // next start hands them out again.
      this.stopping.abort();
      if (error) this.log.error(error.message);
      else this.log.info('stopping: finishing the running handlers');
      await this.socket?.close();
      while (this.inflight.size > 0) await Promise.all(this.inflight);
      await this.handled?.flush();
      this.removeSignalHandlers?.();
      if (error) this.settle?.reject(error);
      else {
        this.log.info('stopped');
        this.settle?.resolve();
      }
    })();
    return this.stopped;
  }

  /**
   * Under `npx tsx bot.ts`, a SIGTERM to npx ends npm without reaching the bot: stop as on SIGTERM
   * once the npm process that started the bot is gone, so no orphan is left running.
   */
  private watchLauncher(): void {
    const launcher = npmLauncherPid();
    if (launcher === undefined) return;
    const unwatch = watchProcess(launcher, () => {
      this.log.info(`the npm process that started this bot (pid ${launcher}) has ended`);
      void this.stop();
    });
    const remove = this.removeSignalHandlers;
    this.removeSignalHandlers = () => {
      unwatch();
      remove?.();
    };
  }

  private installSignalHandlers(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.stopped) {
        // A second signal: stop waiting for the handlers and end the way the signal would.
        this.removeSignalHandlers?.();
        process.kill(process.pid, signal);
        return;
      }
      this.log.info(`${signal} received`);
      void this.stop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    this.removeSignalHandlers = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  }
}

/** Runs `handler` on each new message addressed to the bot; the promise is start()'s. */
export function runBot(handler: MessageHandler, options: BotOptions = {}): Promise<void> {
  return new SkeinBot(options).onMessage(handler).start();
}

/** Whether a failed call found no service at all (down or restarting), rather than a refusal. */
function away(error: unknown): boolean {
  if (error instanceof SkeinError && !(error instanceof MessageRejected))
    return [502, 503, 504].includes(error.status);
  return error instanceof TypeError;
}

/** Whether a failed call may succeed later: no answer at all (the service down), 408, 429 or 5xx. */
function transient(error: unknown): boolean {
  if (error instanceof MessageRejected) return error.status === 429;
  if (error instanceof SkeinError) return [408, 429, 500, 502, 503, 504].includes(error.status);
  return error instanceof TypeError; // fetch failed: refused, reset, DNS
}
