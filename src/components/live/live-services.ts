// The live machinery of one instance (decision 031): the router that hands live news to this
// instance's connections, the board of typing signals, and the listener of the live bus.
import type { Config } from '../../platform/config.js';
import type { EventLogServices, PostLanding } from '../event-log/event-log-services.js';
import type { Logger } from '../../platform/logger.js';
import { LocalStreamStore } from './local-stream-store.js';
import type { TypingTarget } from './live-frames.js';
import { LiveRouter } from './live-router.js';
import type { Judged } from './set-typing.js';
import { StreamBoard, type StreamNews } from './stream-board.js';
import type { StreamStore } from './stream-store.js';
import { TypingBoard, type TypingNews } from './typing-board.js';

export interface LiveServices {
  router: LiveRouter;
  typing: TypingBoard;
  streams: StreamBoard;
  /** The text of open streams: in Redis with REDIS_URL, else here. */
  store: StreamStore;
  /** Publishes stream news on the live bus (opened, stop, ended; chunks come from the store). */
  publish(news: StreamNews): Promise<void>;
  /** Typing audiences judged here recently, by caller and target as given (set-typing.ts). */
  audiences: Map<string, Judged>;
  stop(): Promise<void>;
}

export async function startLive(
  config: Config,
  events: EventLogServices,
  log: Logger,
): Promise<LiveServices> {
  const router = new LiveRouter(events.router);
  const typing = new TypingBoard(router);
  const publish = (news: StreamNews) => events.bus.publishLive(news);
  const store: StreamStore = config.redisUrl
    ? await (await import('./redis-stream-store.js')).RedisStreamStore.connect(config.redisUrl)
    : new LocalStreamStore((news) => void publish(news));
  const streams = new StreamBoard(router, store, publish, log, Math.floor(config.realtime.eventMaxBytes / 2));
  const stopListening = events.bus.subscribeLive((news) => {
    if (isTypingNews(news)) typing.hear(news);
    else if (isStreamNews(news)) streams.hear(news);
    else log.warn('Ignored unknown live news');
  });
  await streams.load();
  // A typist's message landing where it typed ends the signal there at once, after its `sent`.
  const stopObserving = events.landed.observe((landing) => {
    for (const target of landedTargets(landing)) {
      const active = typing.lookup(TypingBoard.idOf(landing.uid, target));
      if (active) void events.bus.publishLive({ ...active.news, op: 'stop' } satisfies TypingNews);
    }
  });
  return {
    router,
    typing,
    streams,
    store,
    publish,
    audiences: new Map(),
    stop: async () => {
      stopListening();
      stopObserving();
      typing.clear();
      streams.stop();
      await store.close();
    },
  };
}

function landedTargets(landing: PostLanding): TypingTarget[] {
  return [
    ...landing.parent_ids.map((message_id) => ({ message_id })),
    ...landing.channel_ids.map((channel_id) => ({ channel_id })),
    ...landing.conversations.map((conversation) => ({ conversation })),
  ];
}

function isStreamNews(news: unknown): news is StreamNews {
  if (typeof news !== 'object' || news === null) return false;
  const n = news as { k?: unknown; stream_id?: unknown; info?: { stream_id?: unknown } };
  if (n.k === 'stream_opened') return typeof n.info?.stream_id === 'string';
  return (
    (n.k === 'chunk' || n.k === 'stream_stop' || n.k === 'stream_ended') && typeof n.stream_id === 'string'
  );
}

function isTypingNews(news: unknown): news is TypingNews {
  if (typeof news !== 'object' || news === null) return false;
  const n = news as Partial<TypingNews>;
  return (
    n.k === 'typing' &&
    (n.op === 'start' || n.op === 'stop') &&
    typeof n.user?.uid === 'string' &&
    typeof n.target === 'object' &&
    Array.isArray(n.audience?.uids) &&
    Array.isArray(n.audience.channel_ids)
  );
}
