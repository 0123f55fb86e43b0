// A ceiling on things held open at once per key (an account's notification sockets and
// subscriptions), counted across instances when Redis is there (security review 2026-12-02, item 4:
// one account must not multiply its cost by spreading its sockets over instances).
//
// Each thing held is a lease: a member of the key's sorted set in Redis, scored with the time it
// lapses. The instance that holds it renews all of its leases every `renewSeconds` and removes one
// when it ends; a lease not renewed for `leaseSeconds` stops counting. So an instance that dies
// without removing its leases locks nobody out for longer than `leaseSeconds` after its last
// renewal: the next admission on any instance drops what has lapsed, and the key itself expires
// with its last lease. Redis's own clock scores the leases, so instances' clocks need not agree.
//
// Without Redis, and whenever Redis does not answer, each instance counts what it holds itself
// (the rate limiter's insurance, rate-limits.ts); its leases go to Redis with the next renewal once
// it answers again, so what was opened meanwhile counts from then on.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Drops the lapsed leases, then adds one unless `limit` are held: -1 when added, else how many are held. */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[1]) then return held end
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
return -1
`;

/** Gives each member (ARGV[2..]) a fresh lease of ARGV[1] ms, adding the ones Redis lost. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) end
if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
return 0
`;

type CeilingRedis = Redis & {
  skeinLeaseAdmit(key: string, limit: number, leaseMs: number, member: string): Promise<number>;
  skeinLeaseRenew(key: string, leaseMs: number, ...members: string[]): Promise<number>;
};

/** What a refused admission found: how many the key holds (on every instance, with Redis). */
export class CeilingReached extends Error {
  constructor(readonly held: number) {
    super(`${held} held`);
  }
}

export class LeaseCeiling {
  /** This instance's leases by key: what it renews, and what it counts without Redis. */
  private readonly held = new Map<string, Set<string>>();
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly redis: CeilingRedis | undefined;

  constructor(
    private readonly name: string,
    private readonly leaseSeconds: number,
    private readonly renewSeconds: number,
    redis?: Redis,
  ) {
    if (redis) {
      redis.defineCommand('skeinLeaseAdmit', { numberOfKeys: 1, lua: ADMIT });
      redis.defineCommand('skeinLeaseRenew', { numberOfKeys: 1, lua: RENEW });
      this.redis = redis as CeilingRedis;
    }
  }

  /**
   * Takes a lease on `key` unless `limit` are held already (CeilingReached then). Answers the
   * function that gives it back; calling it again does nothing.
   */
  async admit(key: string, limit: number): Promise<() => void> {
    // What this instance holds is part of the count anywhere; without Redis it is the count.
    const local = this.heldHere(key);
    if (local >= limit) throw new CeilingReached(local);
    const member = `${this.instance}:${++this.sequence}`;
    const held = await this.admitShared(key, limit, member);
    if (held !== null && held >= 0) throw new CeilingReached(held);
    // Without Redis's answer, counted again now: admissions awaited together must not all pass.
    if (held === null && this.heldHere(key) >= limit) throw new CeilingReached(this.heldHere(key));
    const leases = this.held.get(key) ?? new Set<string>();
    leases.add(member);
    this.held.set(key, leases);
    this.startRenewing();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(key, member);
    };
  }

  /** How many leases on `key` this instance holds. */
  heldHere(key: string): number {
    return this.held.get(key)?.size ?? 0;
  }

  /** Stops renewing; leases still held lapse on their own (as when the instance dies). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private redisKey(key: string): string {
    return `skein-ceiling:${this.name}:${key}`;
  }

  /** Redis's answer (-1 admitted, else the count held), or null when Redis does not answer. */
  private async admitShared(key: string, limit: number, member: string): Promise<number | null> {
    if (!this.redis || this.closed) return null;
    try {
      return await this.redis.skeinLeaseAdmit(this.redisKey(key), limit, this.leaseSeconds * 1000, member);
    } catch {
      return null;
    }
  }

  private release(key: string, member: string): void {
    const leases = this.held.get(key);
    leases?.delete(member);
    if (leases?.size === 0) this.held.delete(key);
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    // Should Redis not answer, the lease lapses by itself.
    if (this.redis && !this.closed) this.redis.zrem(this.redisKey(key), member).catch(() => undefined);
  }

  private startRenewing(): void {
    if (!this.redis || this.timer || this.closed) return;
    this.timer = setInterval(() => this.renew(), this.renewSeconds * 1000);
    this.timer.unref();
  }

  /** One round of renewals, one command per key, pipelined; a failed round is retried by the next. */
  private renew(): void {
    if (!this.redis || this.closed) return;
    const pipeline = this.redis.pipeline() as ReturnType<Redis['pipeline']> & {
      skeinLeaseRenew(key: string, leaseMs: number, ...members: string[]): unknown;
    };
    for (const [key, leases] of this.held)
      pipeline.skeinLeaseRenew(this.redisKey(key), this.leaseSeconds * 1000, ...leases);
    pipeline.exec().catch(() => undefined);
  }
}
