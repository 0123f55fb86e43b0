// Sends due webhook deliveries. Every running service has one; the deliveries live in Neo4j, so
// several instances share the work and a restarted one resumes it.
//
// It wakes when events are numbered (this instance's or, through Redis, any instance's): it plans
// deliveries for the new events (plan-deliveries.cypher) and claims those it planned. It also
// polls, with a read, for planning left behind (a lost bus message) and for deliveries that became
// due (retries, leases run out), and takes locks only when it found some: an idle service wrote
// twice a second here. The poll runs every second while there is work and backs off to
// IDLE_POLL_MS on a quiet instance; retries this instance scheduled, and redeliveries asked of it,
// wake it at their time. Each attempt is claimed first: a lease on the
// delivery, taken in a write transaction that re-checks the delivery under its write lock, so two
// instances never send the same attempt. The lease outlives the request's time-out; if the holder
// dies mid-send, the lease runs out and someone sends again with the same webhook-id (delivery is
// at-least-once, and receivers deduplicate by webhook-id). The body is built at each attempt from
// the graph; when nothing of it is left to show (the messages were deleted or hidden from the
// recipient since), nothing is sent and the delivery is `dropped`. A delivery queued again by hand
// (redeliver-delivery.ts) is claimed, built, checked and signed here like any other, for one attempt.
// An endpoint with include_context also gets each new message's conversation context, read at the
// attempt as the recipient reads it (events/message-contexts.ts); without it nothing more is read.
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import type { AppContext } from '../../platform/context.js';
import { BackoffPoll } from '../../platform/backoff-poll.js';
import { buildClientEvent } from '../events/event-payloads.js';
import { withinBudget } from '../events/event-budget.js';
import { recipientCaller, withMessageContexts } from '../events/message-contexts.js';
import type { ClientEvent } from '../events/notification-event.js';
import { decideOutcome } from './delivery-policy.js';
import { WEBHOOK_TIMEOUT_MS, sendWebhook } from './send-webhook.js';
import {
  claimDueDeliveries,
  countPendingDeliveries,
  findDispatcherWork,
  planDeliveries,
  recordAttempt,
  type ClaimedDelivery,
} from './webhooks-repository.js';

/** How often the pending deliveries are counted for /metrics. */
/**
 * The poll's longest interval on a quiet instance: it finds retries another instance scheduled, and
 * deliveries whose holder died; new events wake the planner through the bus, not the poll.
 */
const IDLE_POLL_MS = 16_000;

/** Events planned per round; a full round is followed by another at once. */
export const PLAN_BATCH = 500;

/** What a dispatcher pass does: look for work (a poll), plan new events, claim due deliveries. */
interface Work {
  poll: boolean;
  plan: boolean;
  claim: boolean;
}
const NO_WORK: Work = { poll: false, plan: false, claim: false };

/** The outcome of an attempt that found nothing left to send. */
const DROPPED = {
  state: 'dropped',
  status: null,
  error: 'Nothing was sent: the messages were deleted or are no longer visible to the recipient.',
} as const;

export interface WebhookDispatcher {
  /** Stops claiming, waits for the attempts in flight to finish and be recorded, leaves no timers. */
  stop(): Promise<void>;
}

export interface WebhookDispatcherOptions {
  /** How often to look for deliveries that became due (retries). Default 1 s. */
  pollMs?: number;
  /**
   * The poll's interval once polls in a row found nothing (BackoffPoll). Default 16 s, or pollMs
   * when that is given. Retries this instance scheduled are woken at their time anyway.
   */
  idlePollMs?: number;
  /** How long a claim holds a delivery; must outlast the request time-out. Default 60 s. */
  leaseMs?: number;
  /** Attempts in flight at once in this instance. Default 32. */
  maxInFlight?: number;
  /** Time-out of one request. Default 15 s (the contract's). */
  timeoutMs?: number;
  /** Names this instance in leases (for operators reading the graph). */
  owner?: string;
  /** Jitter source, for tests. */
  random?: () => number;
  /**
   * Claim only these users' deliveries, read at every claim. For tests, which share one database:
   * a dispatcher of one test file must leave other files' deliveries to theirs. A service claims all.
   */
  onlyUids?: ReadonlySet<string>;
}

export function startWebhookDispatcher(
  ctx: AppContext,
  options: WebhookDispatcherOptions = {},
): WebhookDispatcher {
  const pollMs = options.pollMs ?? 1_000;
  const idlePollMs = options.idlePollMs ?? (options.pollMs === undefined ? IDLE_POLL_MS : pollMs);
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const leaseMs = Math.max(options.leaseMs ?? 60_000, timeoutMs + 5_000);
  const maxInFlight = options.maxInFlight ?? 32;
  const owner = options.owner ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const random = options.random ?? Math.random;
  const log = ctx.log.child({ component: 'webhooks', owner });

  let stopped = false;
  /** The end of the latest round heard on the bus: planning may go that far before it is settled. */
  let heard = 0;
  let claiming: Promise<void> | null = null;
  /** What the next pass must do; wake-ups during a pass add to it, for the pass after it. */
  let owed: Work = { ...NO_WORK };
  const inFlight = new Set<Promise<void>>();
  const onlyUids = options.onlyUids;

  const wake = (wanted: Partial<Work>): void => {
    if (stopped) return;
    owed = {
      poll: owed.poll || wanted.poll === true,
      plan: owed.plan || wanted.plan === true,
      claim: owed.claim || wanted.claim === true,
    };
    if (claiming) return;
    const work = owed;
    owed = { ...NO_WORK };
    claiming = dispatch(work)
      .catch((error: unknown) => log.warn({ err: error }, 'Claiming webhook deliveries failed'))
      .finally(() => {
        claiming = null;
        if (owed.poll || owed.plan || owed.claim) wake({});
      });
  };

  /**
   * Plans, then claims and sends. A poll first reads whether either has anything to do, so an idle
   * service writes nothing; planning that made no delivery claims nothing (the poll takes retries).
   */
  const dispatch = async ({ poll, plan, claim }: Work): Promise<void> => {
    if (poll) {
      const found = await findDispatcherWork(ctx.db, PLAN_BATCH, onlyUids ? [...onlyUids] : undefined);
      plan ||= found.behind;
      claim ||= found.due;
      if (found.behind || found.due) poller.activity();
    }
    // Deliveries for the events numbered since the last round, across instances; a full round is
    // followed by another at once.
    let full = plan;
    while (full) {
      const round = await planDeliveries(ctx.db, PLAN_BATCH, heard);
      if (round.planned > 0) claim = true;
      full = round.full;
    }
    if (!claim) return;
    const room = maxInFlight - inFlight.size;
    if (room <= 0) return;
    const claimed = await claimDueDeliveries(ctx.db, {
      owner,
      leaseToken: randomUUID(),
      limit: room,
      leaseMs,
      ...(onlyUids ? { onlyUids: [...onlyUids] } : {}),
    });
    for (const delivery of claimed) {
      const sending: Promise<void> = attempt(delivery)
        .catch((error: unknown) =>
          // The lease runs out and the attempt is made again: at-least-once, never lost.
          log.error({ err: error, webhook_id: delivery.webhook_id }, 'Recording a webhook attempt failed'),
        )
        .finally(() => {
          inFlight.delete(sending);
          // A full claim may have left due deliveries behind; freed room takes the next ones.
          if (claimed.length === room) wake({ claim: true });
        });
      inFlight.add(sending);
    }
    if (claimed.length === room) owed.claim = true;
  };

  /**
   * The body as the recipient sees the event now, within the event budget (event-budget.ts); null
   * when it shows nothing any more.
   */
  const buildBody = async (delivery: ClaimedDelivery): Promise<ClientEvent | null> => {
    const { event, recipient } = delivery;
    const built = event ? await buildClientEvent(ctx, delivery.uid, event) : null;
    const body =
      built && event && recipient
        ? await withMessageContexts(ctx, recipientCaller(recipient), built, event.id)
        : built;
    return body && withinBudget(body, ctx.config.realtime.eventMaxBytes);
  };

  const attempt = async (delivery: ClaimedDelivery): Promise<void> => {
    const startedAt = new Date();
    const number = delivery.attempts + 1;
    const body = await buildBody(delivery);
    const result = body
      ? await sendWebhook(
          {
            webhookId: delivery.webhook_id,
            url: delivery.url,
            secret: delivery.secret,
            previousSecret: delivery.previous_secret,
            payload: JSON.stringify(body),
          },
          { allowPrivate: ctx.config.webhookAllowPrivate, timeoutMs },
        )
      : null;
    const now = new Date();
    const outcome = result ? decideOutcome(number, result, now, random, delivery.redelivery) : DROPPED;
    ctx.metrics.webhookAttempts.inc({ outcome: outcome.state });
    if (outcome.state === 'delivered' && delivery.event) {
      ctx.metrics.eventsDelivered.inc({ transport: 'webhook' });
      ctx.metrics.deliveryLag.observe(
        { transport: 'webhook' },
        (now.getTime() - Date.parse(delivery.event.created_at)) / 1000,
      );
    }
    const kept = await recordAttempt(ctx.db, {
      webhook_id: delivery.webhook_id,
      uid: delivery.uid,
      url: delivery.url,
      lease_token: delivery.lease_token,
      claimed_at: delivery.claimed_at,
      state: outcome.state,
      status: outcome.status,
      error: outcome.error,
      delay_ms: outcome.state === 'pending' ? outcome.delayMs : 0,
      entry: {
        attempt: number,
        at: startedAt.toISOString(),
        url: delivery.url,
        status: outcome.status,
        error: outcome.error,
        duration_ms: now.getTime() - startedAt.getTime(),
      },
    });
    // A retry this instance scheduled is claimed at its time, whatever the poll's interval then.
    if (kept && outcome.state === 'pending') setTimeout(() => wake({ claim: true }), outcome.delayMs).unref();
    if (!kept) {
      log.warn({ webhook_id: delivery.webhook_id }, 'Webhook lease ran out before the attempt was recorded');
    } else if (outcome.state !== 'delivered') {
      log.info(
        { webhook_id: delivery.webhook_id, attempt: number, state: outcome.state, status: outcome.status },
        'Webhook attempt failed',
      );
    }
  };

  const unsubscribe = ctx.events.bus.subscribe((round) => {
    heard = Math.max(heard, round.to);
    poller.activity();
    wake({ plan: true });
  });
  const stopListening = ctx.webhookWork.listen(() => wake({ claim: true }));
  // The poll's answer arrives in dispatch(), which calls activity() when it found work.
  const poller = new BackoffPoll(
    () => {
      wake({ poll: true });
      return Promise.resolve(false);
    },
    { baseMs: pollMs, idleMs: idlePollMs },
  );
  // The queue depth for /metrics, read at each scrape.
  ctx.metrics.webhookQueueCounter = () => countPendingDeliveries(ctx.db);
  wake({ poll: true });

  return {
    stop: async () => {
      stopped = true;
      poller.stop();
      ctx.metrics.webhookQueueCounter = null;
      unsubscribe();
      stopListening();
      await claiming;
      await Promise.allSettled([...inFlight]);
    },
  };
}
