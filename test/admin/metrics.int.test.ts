// GET /v1/admin/metrics/messages-per-day and the GraphQL field messagesPerDay.
// Every test file writes messages today, so assertions pick this file's authors' rows.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginAdmin, postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { expectValidationError } from '../threads/thread-fixtures.js';

interface DayCount {
  date: string;
  author: { uid: string; user_tag: string };
  count: number;
}

let api: TestServer;
let adminToken: string;
let busy: TestUser, quiet: TestUser;
/** Expected rows of this file's authors, from the timestamps the service gave the messages. */
let expected: DayCount[];
let firstDay: string, lastDay: string;

const dayOf = (iso: string) => iso.slice(0, 10);
const shiftDay = (day: string, by: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + by * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  api = await startTestServer();
  adminToken = await loginAdmin(api);
  [busy, quiet] = await Promise.all([registerWriter(api), registerWriter(api)]);
  const stamps: { user: TestUser; day: string }[] = [];
  for (const [user, n] of [
    [busy, 3],
    [quiet, 1],
  ] as const) {
    for (let i = 0; i < n; i++) {
      const message = await postMessage(api, user.token, { content: `metrics ${i}` });
      stamps.push({ user, day: dayOf(message.timestamp as string) });
    }
  }
  // Grouped as the service must group them (a run crossing UTC midnight splits the counts).
  const counts = new Map<string, DayCount>();
  for (const { user, day } of stamps) {
    const key = `${day}/${user.uid}`;
    const row = counts.get(key) ?? { date: day, author: { uid: user.uid, user_tag: user.tag }, count: 0 };
    row.count += 1;
    counts.set(key, row);
  }
  expected = [...counts.values()].sort((a, b) =>
    a.date !== b.date ? (a.date < b.date ? -1 : 1) : b.count - a.count,
  );
  firstDay = expected[0]!.date;
  lastDay = expected[expected.length - 1]!.date;
});

afterAll(async () => {
  await api.close();
});

const ours = (rows: DayCount[]) => rows.filter((r) => [busy.uid, quiet.uid].includes(r.author.uid));

async function metrics(query: string, token = adminToken) {
  return api.request<DayCount[]>('GET', `/v1/admin/metrics/messages-per-day${query}`, { token });
}

describe('GET /v1/admin/metrics/messages-per-day', () => {
  it('when the admin asks for the days of these messages, then each author has their count, busiest first', async () => {
    const res = await metrics(`?from_date=${firstDay}&to_date=${lastDay}&limit=10000`);
    expect(res.status).toBe(200);
    expect(ours(res.body)).toEqual(expected);
    for (const row of res.body) {
      expect(row.date >= firstDay && row.date <= lastDay).toBe(true);
    }
  });

  it('when rows come back, then they are ordered by date, then count descending', async () => {
    const res = await metrics(`?from_date=${shiftDay(firstDay, -30)}&limit=10000`);
    expect(res.status).toBe(200);
    for (let i = 1; i < res.body.length; i++) {
      const [a, b] = [res.body[i - 1]!, res.body[i]!];
      expect(a.date < b.date || (a.date === b.date && a.count >= b.count)).toBe(true);
    }
    expect(ours(res.body)).toEqual(expected);
  });

  it('when no dates are given, then the range is open and these authors are counted', async () => {
    const res = await metrics('?limit=10000');
    expect(res.status).toBe(200);
    expect(ours(res.body)).toEqual(expected);
  });

  it('when the range ends before or starts after these messages, then their authors are absent', async () => {
    const before = await metrics(`?to_date=${shiftDay(firstDay, -1)}&limit=10000`);
    expect(before.status).toBe(200);
    expect(ours(before.body)).toEqual([]);
    const after = await metrics(`?from_date=${shiftDay(lastDay, 1)}`);
    expect(after.status).toBe(200);
    expect(ours(after.body)).toEqual([]);
  });

  it('when limit is 1, then exactly one row comes back', async () => {
    const res = await metrics(`?from_date=${firstDay}&to_date=${lastDay}&limit=1`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it('when a date is malformed or impossible, or from_date is after to_date, then 422', async () => {
    expectValidationError(await metrics('?from_date=2026-13-01'), 'from_date');
    expectValidationError(await metrics('?to_date=2026-02-30'), 'to_date');
    expectValidationError(await metrics('?from_date=yesterday'), 'from_date');
    expectValidationError(await metrics('?to_date=2026-1-5'), 'to_date');
    expectValidationError(await metrics('?from_date=2026-03-02&to_date=2026-03-01'), 'from_date');
  });

  it('when limit is outside 1–10000, then 422; at the bounds, 200', async () => {
    for (const limit of ['0', '10001', 'x']) expectValidationError(await metrics(`?limit=${limit}`), 'limit');
    expect((await metrics('?limit=10000&from_date=2026-01-01&to_date=2026-01-01')).status).toBe(200);
    expect((await metrics('?from_date=2026-03-01&to_date=2026-03-01')).status).toBe(200);
  });

  it('when a user without the admin scope asks, then 403 insufficient_scope', async () => {
    const res = await metrics('', busy.token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });

  it('when nobody is signed in, then 401', async () => {
    const res = await api.request('GET', '/v1/admin/metrics/messages-per-day');
    expect(res.status).toBe(401);
  });
});

describe('GraphQL messagesPerDay', () => {
  const QUERY = `query ($from: String, $to: String, $limit: Int) {
    messagesPerDay(from_date: $from, to_date: $to, limit: $limit) { date count author { uid user_tag } }
  }`;

  it('when the admin asks, then the same rows as REST', async () => {
    const res = await api.graphql<{ messagesPerDay: DayCount[] }>(
      QUERY,
      { from: firstDay, to: lastDay, limit: 10000 },
      { token: adminToken },
    );
    expect(res.body.errors).toBeUndefined();
    expect(ours(res.body.data!.messagesPerDay)).toEqual(expected);
  });

  it('when a non-admin asks, or the dates are reversed, then 403 / 422', async () => {
    const denied = await api.graphql(QUERY, {}, { token: quiet.token });
    expect(denied.body.errors?.[0]?.extensions).toMatchObject({ code: 'insufficient_scope', status: 403 });
    const reversed = await api.graphql(
      QUERY,
      { from: '2026-03-02', to: '2026-03-01' },
      { token: adminToken },
    );
    expect(reversed.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
  });
});
