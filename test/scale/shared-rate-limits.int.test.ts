// With REDIS_URL every rate limit counts across instances: a client cannot multiply its budget by
// spreading its requests over them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let redis: RedisServer;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  // A Redis of its own, so that no other test's requests count against this budget.
  redis = await startRedisServer();
  const env = { REDIS_URL: redis.url, SKEIN_RATE_LIMIT_AUTH_PER_MIN: '6' };
  [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await redis?.stop();
});

describe('rate limits across instances', () => {
  it('when one address spends its auth budget half on A and half on B, then the next request is 429 on either', async () => {
    const attempt = (api: TestServer) =>
      api.request('POST', '/v1/auth/password/login', {
        body: { user_tag: 'nobody-here-at-all', password: 'not-the-password-1234' },
      });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await attempt(i % 2 === 0 ? a : b)).status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    for (const api of [a, b]) {
      const refused = await attempt(api);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });
});
