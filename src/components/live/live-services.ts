// The live machinery of one instance (decision 031): the router that hands live news to this
// instance's connections, the board of typing signals, and the listener of the live bus.
import type { EventLogServices, PostLanding } from '../event-log/event-log-services.js';
import type { Logger } from '../../platform/logger.js';
import type { TypingTarget } from './live-frames.js';
import { LiveRouter } from './live-router.js';
import type { Judged } from './set-typing.js';
import { TypingBoard, type TypingNews } from './typing-board.js';

export interface LiveServices {
  router: LiveRouter;
  typing: TypingBoard;
  /** Typing audiences judged here recently, by caller and target as given (set-typing.ts). */
  audiences: Map<string, Judged>;
  stop(): void;
}

export function startLive(events: EventLogServices, log: Logger): LiveServices {
  const router = new LiveRouter(events.router);
  const typing = new TypingBoard(router);
  const stopListening = events.bus.subscribeLive((news) => {
    if (isTypingNews(news)) typing.hear(news);
    else log.warn('Ignored unknown live news');
  });
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
    audiences: new Map(),
    stop: () => {
      stopListening();
      stopObserving();
      typing.clear();
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
