// The stream store across instances (REDIS_URL). Per stream: the hash skein:stream:{id} (info as
// JSON, writer, state, seq, length, the last chunk, stop, end, message id) and the list
// skein:stream:{id}:chunks; the sorted set skein:streams:open scores open streams by idle deadline.
// An append is one Lua script: it checks writer, state, seq and length, then stores the chunk and
// publishes it on skein:live, so every instance hears chunks in store order. Keys expire
// ENDED_KEPT_MS after the end, and at the latest a day after the last change.
import { Redis } from 'ioredis';
import { LIVE_CHANNEL } from '../event-log/redis-event-bus.js';
import { ENDED_KEPT_MS } from './local-stream-store.js';
import {
  STOP_GRACE_MS,
  type AppendAnswer,
  type OpenAnswer,
  type StreamInfo,
  type StreamLimits,
  type StreamSnapshot,
  type StreamState,
  type StreamStatus,
  type StreamStore,
} from './stream-store.js';

const OPEN_SET = 'skein:streams:open';
const LIFETIME_SECONDS = 24 * 3600;
const hashKey = (id: string) => `skein:stream:{${id}}`;
const chunksKey = (id: string) => `skein:stream:{${id}}:chunks`;

// KEYS: hash, chunks, open set. ARGV: uid, seq, text, text length, max chars, now (ms), idle ms,
// channel, id, lifetime s, now (ISO).
const APPEND = `
local h = redis.call('HMGET', KEYS[1], 'writer_uid', 'state', 'seq', 'length', 'last_text')
if not h[1] then return {'not_found', 0} end
local seq = tonumber(h[3])
if h[1] ~= ARGV[1] then return {'not_writer', seq} end
local want = tonumber(ARGV[2])
if want == seq and seq > 0 and h[5] == ARGV[3] then return {'ok', seq, tonumber(h[4])} end
if h[2] == 'stopping' then return {'stopped', seq} end
if h[2] ~= 'open' then return {'ended', seq} end
if want ~= seq + 1 then return {'seq_conflict', seq} end
local length = tonumber(h[4]) + tonumber(ARGV[4])
if length > tonumber(ARGV[5]) then return {'too_long', seq} end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'seq', want, 'length', length, 'last_text', ARGV[3], 'updated_at', ARGV[11])
redis.call('EXPIRE', KEYS[1], ARGV[10])
redis.call('EXPIRE', KEYS[2], ARGV[10])
redis.call('ZADD', KEYS[3], tonumber(ARGV[6]) + tonumber(ARGV[7]), ARGV[9])
redis.call('PUBLISH', ARGV[8], cjson.encode({k = 'chunk', stream_id = ARGV[9], after = seq, seq = want, text = ARGV[3]}))
return {'ok', want, length}
`;

// KEYS: hash, chunks, open set. ARGV: to, now (ISO), patch JSON, kept ms, id, grace ms, now (ms), from states...
const TRANSITION = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return nil end
local allowed = false
for i = 8, #ARGV do if ARGV[i] == state then allowed = true end end
if not allowed then return nil end
local patch = cjson.decode(ARGV[3])
for field, value in pairs(patch) do redis.call('HSET', KEYS[1], field, value) end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'updated_at', ARGV[2])
if ARGV[1] == 'ended' then
  redis.call('ZREM', KEYS[3], ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
elseif ARGV[1] == 'stopping' then
  local deadline = tonumber(redis.call('ZSCORE', KEYS[3], ARGV[5]) or ARGV[7])
  redis.call('ZADD', KEYS[3], math.min(deadline, tonumber(ARGV[7]) + tonumber(ARGV[6])), ARGV[5])
end
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: hash, chunks, open set, the writer's open set, the Idempotency-Key's key. ARGV: info JSON,
// writer uid, now, deadline, id, max open, lifetime s, '1' when a key was given. Answers 1 (opened),
// 0 (the writer has max open) or the id of the stream opened earlier with the key, if still there.
const OPEN = `
if ARGV[8] == '1' then
  local earlier = redis.call('GET', KEYS[5])
  if earlier and redis.call('EXISTS', 'skein:stream:{' .. earlier .. '}') == 1 then return earlier end
end
local open = redis.call('SMEMBERS', KEYS[4])
local count = 0
for _, id in ipairs(open) do
  if redis.call('ZSCORE', KEYS[3], id) then count = count + 1 else redis.call('SREM', KEYS[4], id) end
end
if count >= tonumber(ARGV[6]) then return 0 end
redis.call('HSET', KEYS[1], 'info', ARGV[1], 'writer_uid', ARGV[2], 'state', 'open', 'seq', 0, 'length', 0,
  'last_text', '', 'updated_at', ARGV[3], 'stop', 'null', 'ended', 'null', 'message_id', 'null')
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
redis.call('SADD', KEYS[4], ARGV[5])
redis.call('EXPIRE', KEYS[4], ARGV[7])
if ARGV[8] == '1' then redis.call('SET', KEYS[5], ARGV[5], 'EX', ARGV[7]) end
return 1
`;

export class RedisStreamStore implements StreamStore {
  private constructor(private readonly redis: Redis) {}

  static async connect(url: string): Promise<RedisStreamStore> {
    const redis = new Redis(url, {
      lazyConnect: true,
      connectionName: 'skein-streams',
      maxRetriesPerRequest: 2,
    });
    redis.on('error', () => undefined);
    await redis.connect();
    return new RedisStreamStore(redis);
  }

  async open(
    info: StreamInfo,
    maxOpen: number,
    now: number,
    idleMs: number,
    key: string | null,
  ): Promise<OpenAnswer> {
    const id = info.stream_id;
    const answer = await this.redis.eval(
      OPEN,
      5,
      hashKey(id),
      chunksKey(id),
      OPEN_SET,
      `skein:streams:user:{${info.writer.uid}}`,
      `skein:streams:key:{${info.writer.uid}}:${key ?? ''}`,
      JSON.stringify(info),
      info.writer.uid,
      new Date(now).toISOString(),
      now + idleMs,
      id,
      maxOpen,
      LIFETIME_SECONDS,
      key === null ? '0' : '1',
    );
    if (answer === 1) return { opened: true };
    if (typeof answer === 'string') return { opened: false, existing: answer };
    return { opened: false, full: true };
  }

  async append(
    streamId: string,
    uid: string,
    seq: number,
    text: string,
    now: number,
    limits: StreamLimits,
  ): Promise<AppendAnswer> {
    const answer = (await this.redis.eval(
      APPEND,
      3,
      hashKey(streamId),
      chunksKey(streamId),
      OPEN_SET,
      uid,
      seq,
      text,
      text.length,
      limits.maxChars,
      now,
      limits.idleMs,
      LIVE_CHANNEL,
      streamId,
      LIFETIME_SECONDS,
      new Date(now).toISOString(),
    )) as [string, number, number?];
    const [reason, atSeq, length] = answer;
    if (reason === 'ok') return { ok: true, seq: atSeq, length: length ?? 0 };
    return { ok: false, reason: reason as Exclude<AppendAnswer, { ok: true }>['reason'], seq: atSeq };
  }

  async snapshot(streamId: string): Promise<StreamSnapshot | null> {
    // One transaction: the text and the status agree.
    const replies = await this.redis
      .multi()
      .hgetall(hashKey(streamId))
      .lrange(chunksKey(streamId), 0, -1)
      .exec();
    const hash = replies?.[0]?.[1] as Record<string, string> | undefined;
    const chunks = (replies?.[1]?.[1] as string[] | undefined) ?? [];
    if (!hash?.info) return null;
    const status = statusOf(hash);
    return { info: JSON.parse(hash.info) as StreamInfo, status, text: chunks.slice(0, status.seq).join('') };
  }

  async textAfter(streamId: string, seq: number): Promise<{ text: string; seq: number } | null> {
    const chunks = await this.redis.lrange(chunksKey(streamId), seq, -1);
    return { text: chunks.join(''), seq: seq + chunks.length };
  }

  async transition(
    streamId: string,
    from: StreamState[],
    to: StreamState,
    patch: Partial<Pick<StreamStatus, 'stop' | 'ended' | 'message_id'>>,
    now: number,
  ): Promise<StreamStatus | null> {
    const stored = Object.fromEntries(
      Object.entries(patch).map(([field, value]) => [field, JSON.stringify(value)]),
    );
    const after = (await this.redis.eval(
      TRANSITION,
      3,
      hashKey(streamId),
      chunksKey(streamId),
      OPEN_SET,
      to,
      new Date(now).toISOString(),
      JSON.stringify(stored),
      ENDED_KEPT_MS,
      streamId,
      STOP_GRACE_MS,
      now,
      ...from,
    )) as string[] | null;
    if (!after) return null;
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < after.length; i += 2) hash[after[i]!] = after[i + 1]!;
    return statusOf(hash);
  }

  async listOpen(): Promise<{ stream_id: string; deadline: number }[]> {
    const flat = (await this.redis.call('ZRANGE', OPEN_SET, '0', '-1', 'WITHSCORES')) as string[];
    const open: { stream_id: string; deadline: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      open.push({ stream_id: flat[i]!, deadline: Number(flat[i + 1]) });
    return open;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
    this.redis.disconnect();
  }
}

function statusOf(hash: Record<string, string>): StreamStatus {
  return {
    state: hash.state as StreamState,
    seq: Number(hash.seq),
    length: Number(hash.length),
    updated_at: hash.updated_at ?? new Date(0).toISOString(),
    stop: JSON.parse(hash.stop ?? 'null') as StreamStatus['stop'],
    ended: JSON.parse(hash.ended ?? 'null') as StreamStatus['ended'],
    message_id: JSON.parse(hash.message_id ?? 'null') as string | null,
  };
}
