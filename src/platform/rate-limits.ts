// Rate limits (rate-limiter-flexible). Per client address on the auth endpoints, and per account
// for failed logins and wrong secrets, which always apply whatever the address. With REDIS_URL the
// counts live in Redis, so every instance counts against one budget; should Redis fail, each
// instance goes on counting in its own memory until it is back (the library's insurance limiter).
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AppError } from './errors.js';
import type { Config } from './config.js';

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

  /** Counts one hit for `key`; throws 429 with Retry-After once the budget is spent. */
  async consume(key: string): Promise<LimitState> {
    try {
      const res = await this.limiter.consume(key);
      return this.state(res);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw tooMany(this.state(error));
      throw error;
    }
  }

  /** Throws 429 when `key` has no budget left, without counting a hit. */
  async assertNotBlocked(key: string): Promise<void> {
    const res = await this.limiter.get(key);
    if (res && res.remainingPoints <= 0 && res.consumedPoints >= this.points) throw tooMany(this.state(res));
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

function tooMany(state: LimitState): AppError {
  return new AppError('rate_limited', 'Too many requests; try again later.', {
    headers: {
      'Retry-After': String(state.resetSeconds),
      'RateLimit-Limit': String(state.limit),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(state.resetSeconds),
    },
  });
}

export interface RateLimits {
  /** Requests per client address per minute on the auth endpoints. */
  authByAddress: Limiter;
  /** Failed password logins per account per 15 minutes. */
  loginFailuresByAccount: Limiter;
  /** Wrong API key secrets per key id per 15 minutes. */
  keyFailuresById: Limiter;
  /** Verification and password-reset challenges asked for, per account per hour. */
  challengeRequestsByAccount: Limiter;
  /** Challenges asked for per target (an email, phone, endpoint URL or reset target) per hour. */
  challengeRequestsByTarget: Limiter;
  /** Wrong verification or reset codes per account per 15 minutes. */
  codeFailuresByAccount: Limiter;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

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
  return {
    authByAddress: limiter('auth-ip', config.rateLimits.authPerMinute, 60),
    loginFailuresByAccount: limiter('login-fail', config.rateLimits.loginFailuresPer15Min, 15 * 60),
    keyFailuresById: limiter('key-fail', config.rateLimits.loginFailuresPer15Min, 15 * 60),
    challengeRequestsByAccount: limiter('challenge-acct', config.verification.requestsPerHour, 3600),
    challengeRequestsByTarget: limiter('challenge-target', config.verification.requestsPerHour, 3600),
    codeFailuresByAccount: limiter('code-fail', config.verification.codeFailuresPer15Min, 15 * 60),
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
