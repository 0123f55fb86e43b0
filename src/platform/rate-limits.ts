// Rate limits (rate-limiter-flexible). Per client address on the auth endpoints; per account on
// writes (posts, pings, recipient adds, uploads, reactions, profile edits); for failed logins and
// wrong secrets, per account and address, and per account whatever the address (FailureGuard). With
// REDIS_URL the counts live in Redis, so every instance counts against one budget; should Redis
// fail, each instance goes on counting in its own memory until it is back (the library's insurance
// limiter). The ceiling on an account's open notification feeds lives here too (lease-ceiling.ts),
// on the same connection.
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AppError } from './errors.js';
import type { Config } from './config.js';
import { LeaseCeiling } from './lease-ceiling.js';

export interface LimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export class Limiter {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    readonly name: string,
    readonly points: number,
    durationSeconds: number,
    redis?: Redis,
  ) {
    const options = { keyPrefix: `skein-rl:${name}`, points, duration: durationSeconds };
    this.limiter = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  /**
   * Counts `points` hits for `key` (a post request counts its messages); throws 429 with Retry-After
   * when they do not fit in what is left. A refused request of several points gives them back, so
   * the account may still spend what was left on a smaller one.
   */
  async consume(key: string, points = 1): Promise<LimitState> {
    try {
      const res = await this.limiter.consume(key, points);
      return this.state(res);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      if (points === 1) throw tooMany(this.state(error));
      const left = Math.max(0, this.points - (error.consumedPoints - points));
      await this.limiter.reward(key, points).catch(() => undefined);
      throw tooMany(
        { ...this.state(error), remaining: left },
        points > this.points ? this.points : undefined,
      );
    }
  }

  /**
   * Counts one hit for `key` and answers whether it was within the budget, never throwing: for a
   * limit whose 429 would tell a stranger something (whether an account exists), the caller then
   * quietly does less instead.
   */
  async tryConsume(key: string): Promise<boolean> {
    try {
      await this.limiter.consume(key);
      return true;
    } catch (error) {
      if (error instanceof RateLimiterRes) return false;
      throw error;
    }
  }

  /** Throws 429 when `key` has no budget left, without counting a hit. */
  async assertNotBlocked(key: string): Promise<void> {
    const res = await this.limiter.get(key);
    if (res && this.spent(res)) throw tooMany(this.state(res));
  }

  /** Whether `key` has no budget left (nothing counted). */
  async isSpent(key: string): Promise<boolean> {
    const res = await this.limiter.get(key);
    return res !== null && this.spent(res);
  }

  private spent(res: RateLimiterRes): boolean {
    return res.remainingPoints <= 0 && res.consumedPoints >= this.points;
  }

  /** Counts a failure without throwing: the next attempt is refused by assertNotBlocked. */
  async penalize(key: string): Promise<void> {
    await this.limiter.penalty(key, 1);
  }

  async reset(key: string): Promise<void> {
    await this.limiter.delete(key);
  }

  private state(res: RateLimiterRes): LimitState {
    return {
      limit: this.points,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }
}

/**
 * Failed attempts at an account's secret (its password, or an emailed code) from client
 * addresses (security finding #9: a stranger must not hold a lockout button). Failures are refused
 * outright per (account, address) once `perPair` of them fall in the window, so an attacker's
 * failures never lock the owner out on another address. They also count per account, whatever the
 * address: past ten times that budget, attempts on the account are paced (one per `paceSeconds`,
 * 429 with that Retry-After) instead of refused for the window, which slows a guesser spread over
 * many addresses to a crawl while the owner gets in after a wait of seconds.
 */
export class FailureGuard {
  private readonly byPair: Limiter;
  private readonly byAccount: Limiter;
  private readonly pace: Limiter;

  constructor(name: string, perPair: number, windowSeconds: number, paceSeconds: number, redis?: Redis) {
    this.byPair = new Limiter(`${name}-pair`, perPair, windowSeconds, redis);
    this.byAccount = new Limiter(`${name}-account`, perPair * 10, windowSeconds, redis);
    this.pace = new Limiter(`${name}-pace`, 1, paceSeconds, redis);
  }

  /** Before the secret is checked: 429 for a pair out of tries, or an attempt before its turn. */
  async admit(accountKeys: readonly string[], address: string): Promise<void> {
    for (const key of accountKeys) await this.byPair.assertNotBlocked(pairKey(key, address));
    for (const key of accountKeys) if (await this.byAccount.isSpent(key)) await this.pace.consume(key);
  }

  async fail(accountKeys: readonly string[], address: string): Promise<void> {
    for (const key of accountKeys) {
      await this.byPair.penalize(pairKey(key, address));
      await this.byAccount.penalize(key);
    }
  }

  /** The secret was right: this address starts afresh, and so does the account's count. */
  async succeed(accountKeys: readonly string[], address: string): Promise<void> {
    for (const key of accountKeys) {
      await this.byPair.reset(pairKey(key, address));
      await this.byAccount.reset(key);
    }
  }
}

const pairKey = (accountKey: string, address: string) => `${accountKey}|${address}`;

/**
 * The 429. `remaining` is what is left for a smaller request (0 for one-point limits); `never` is
 * set when the request asked for more points than the whole budget, which no wait makes fit.
 */
function tooMany(state: LimitState, never?: number): AppError {
  const detail =
    never === undefined
      ? 'Too many requests; try again later.'
      : `This request counts more than the ${never} a window allows; send it in smaller parts.`;
  return new AppError('rate_limited', detail, {
    headers: {
      'Retry-After': String(state.resetSeconds),
      'RateLimit-Limit': String(state.limit),
      'RateLimit-Remaining': String(state.remaining),
      'RateLimit-Reset': String(state.resetSeconds),
    },
  });
}

export interface RateLimits {
  /** Requests per client address per minute on the auth endpoints. */
  authByAddress: Limiter;
  /** Wrong passwords (login, password change), per account and address and per account. */
  loginFailures: FailureGuard;
  /** Wrong API key secrets per key id per 15 minutes. */
  keyFailuresById: Limiter;
  /**
   * Challenges asked for per account per hour: contact verifications (429 past it), and, under keys
   * of their own, emailed codes (password reset, sign-in), which past it are quietly not sent.
   */
  challengeRequestsByAccount: Limiter;
  /** Challenges asked for per target (an email, phone, endpoint URL, reset or sign-in target) per hour. */
  challengeRequestsByTarget: Limiter;
  /**
   * Wrong emailed codes (password reset and sign-in by email share it: either signs the account in),
   * per account and address and per account.
   */
  emailedCodeFailures: FailureGuard;
  /** Wrong contact-verification codes per account per 15 minutes (only the signed-in owner tries). */
  codeFailuresByAccount: Limiter;
  // Writes per account per minute, one budget per kind shared by REST and GraphQL (accountLimit).
  /** Messages posted: posts and imports count their messages, content edits one each. */
  postsByAccount: Limiter;
  pingsByAccount: Limiter;
  recipientAddsByAccount: Limiter;
  uploadsByAccount: Limiter;
  /** Reactions added and removed: each tells the message's audience (message.updated). */
  reactionsByAccount: Limiter;
  /**
   * Profile edits: the account's own (POST /v1/users/profile) and a manager's of its managed users
   * (PATCH /v1/managed/users/{uid}); each tells every instance that the user changed.
   */
  profileEditsByAccount: Limiter;
  /** Typing signals (starts, renewals, stops; live/set-typing.ts), on the actions budget's size. */
  typingByAccount: Limiter;
  /** Chunks appended to streamed replies (live/append-stream.ts). */
  streamAppendsByAccount: Limiter;
  /**
   * Open notification feeds (sockets of /v1/ws/v1 and GraphQL subscriptions) per account, against
   * SKEIN_WS_MAX_SOCKETS_PER_USER: on every instance together with REDIS_URL (feed-ceilings.ts).
   */
  feedsByAccount: LeaseCeiling;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/**
 * Counts a write of the signed-in account, `points` hits for a request of several (REST routes and
 * GraphQL resolvers share the key).
 */
export function consumeAccountLimit(
  limiter: Limiter,
  caller: { uid: string },
  points = 1,
): Promise<LimitState> {
  return limiter.consume(`uid:${caller.uid}`, points);
}

/** Past an account's failure budget, one attempt on it per this many seconds (FailureGuard). */
const FAILURE_PACE_SECONDS = 2;

export function createRateLimits(config: Config): RateLimits {
  // Its own connection: commands fail at once while Redis is away (no offline queue), and the
  // insurance limiter counts meanwhile.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: 1000,
        connectionName: 'skein-rate-limits',
      })
    : undefined;
  redis?.on('error', () => undefined);
  const limiter = (name: string, points: number, seconds: number) =>
    new Limiter(name, points, seconds, redis);
  // Renewed at each heartbeat interval; three intervals without one and a lease lapses, so a crashed
  // instance's feeds stop counting within 3 × SKEIN_WS_HEARTBEAT_SECONDS.
  const { heartbeatSeconds } = config.realtime;
  const feedsByAccount = new LeaseCeiling('feeds', 3 * heartbeatSeconds, heartbeatSeconds, redis);
  return {
    authByAddress: limiter('auth-ip', config.rateLimits.authPerMinute, 60),
    loginFailures: new FailureGuard(
      'login-fail',
      config.rateLimits.loginFailuresPer15Min,
      15 * 60,
      FAILURE_PACE_SECONDS,
      redis,
    ),
    emailedCodeFailures: new FailureGuard(
      'emailed-code-fail',
      config.verification.codeFailuresPer15Min,
      15 * 60,
      FAILURE_PACE_SECONDS,
      redis,
    ),
    keyFailuresById: limiter('key-fail', config.rateLimits.loginFailuresPer15Min, 15 * 60),
    challengeRequestsByAccount: limiter('challenge-acct', config.verification.requestsPerHour, 3600),
    challengeRequestsByTarget: limiter('challenge-target', config.verification.requestsPerHour, 3600),
    codeFailuresByAccount: limiter('code-fail', config.verification.codeFailuresPer15Min, 15 * 60),
    postsByAccount: limiter('posts', config.rateLimits.postsPerMinute, 60),
    pingsByAccount: limiter('pings', config.rateLimits.actionsPerMinute, 60),
    recipientAddsByAccount: limiter('recipient-adds', config.rateLimits.actionsPerMinute, 60),
    uploadsByAccount: limiter('uploads', config.rateLimits.actionsPerMinute, 60),
    reactionsByAccount: limiter('reactions', config.rateLimits.actionsPerMinute, 60),
    profileEditsByAccount: limiter('profile-edits', config.rateLimits.actionsPerMinute, 60),
    typingByAccount: limiter('typing', config.rateLimits.actionsPerMinute, 60),
    streamAppendsByAccount: limiter('stream-appends', config.streams.appendsPerMinute, 60),
    feedsByAccount,
    close: async () => {
      feedsByAccount.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
