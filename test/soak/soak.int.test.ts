// Soak: the service as its own process, driven by a mixed load (posts with recipients, reads by id,
// the timeline, inbox and history views, search, and WebSocket listeners) for SKEIN_SOAK_SECONDS
// (default 40, the short form CI runs; `npm run test:soak` runs 30 minutes). It reports requests,
// errors and the service's resident memory over time, and fails on any 5xx, any failed request, or
// a lost notification. Memory must stay flat: after a warm-up of a third of the run, the last
// third's median and peak may each exceed the middle third's by at most 10% (judged only on runs of
// ten minutes or more; shorter runs report the numbers). Like is compared with like because the RSS
// of a busy Node process is a sawtooth (here 200 ↔ 300 MiB every 20–40 s as V8 collects): a peak
// against one sample taken at a low point fails a process whose memory is flat, while a leak lifts
// the middle and the top of the sawtooth alike.
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, jest } from '@jest/globals';
import WebSocket from 'ws';
import { STRONG_PASSWORD, WRITER_SCOPES, uniqueTag } from '../support/factories.js';
import { sleep, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';

const SECONDS = Number(process.env.SKEIN_SOAK_SECONDS ?? 40);
const JUDGE_MEMORY_FROM_SECONDS = 600;
jest.setTimeout((SECONDS + 300) * 1000);

const ADMIN = { tag: 'soak-admin', password: 'soak-admin-password-9a3c' };
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skein-soak-'));
let service: ServiceProcess | undefined;

afterAll(async () => {
  if (service) {
    service.kill('SIGTERM');
    await service.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

interface Account {
  uid: string;
  tag: string;
  token: string;
}

class Client {
  requests = 0;
  failures: string[] = [];
  constructor(private readonly base: string) {}

  async call<T>(method: string, pathname: string, token?: string, body?: unknown): Promise<T | undefined> {
    this.requests++;
    try {
      const res = await fetch(this.base + pathname, {
        method,
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      if (res.status >= 300) {
        this.failures.push(`${method} ${pathname} → ${res.status} ${text.slice(0, 200)}`);
        return undefined;
      }
      return JSON.parse(text) as T;
    } catch (error) {
      this.failures.push(`${method} ${pathname} → ${String(error)}`);
      return undefined;
    }
  }
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

it(`when the service runs a mixed load for ${SECONDS} s, then nothing fails, no notification is lost and memory stays flat`, async () => {
  const port = await freePort();
  service = await startServiceProcess({
    PORT: String(port),
    SKEIN_DATA_DIR: dataDir,
    SKEIN_NEO4J_PORT: String(await freePort()),
    SKEIN_ADMIN_TAG: ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: ADMIN.password,
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    LOG_LEVEL: 'silent',
  });
  const client = new Client(service.url);

  const admin = await client.call<{ access_token: string }>('POST', '/v1/auth/password/login', undefined, {
    user_tag: ADMIN.tag,
    password: ADMIN.password,
  });
  const accounts: Account[] = [];
  for (let i = 0; i < 6; i++) {
    const tag = uniqueTag('soak');
    const registered = await client.call<{ access_token: string }>('POST', '/v1/auth/register', undefined, {
      user_tag: tag,
      password: STRONG_PASSWORD,
    });
    const me = await client.call<{ uid: string }>('GET', '/v1/users/me', registered!.access_token);
    await client.call('PATCH', `/v1/admin/users/${me!.uid}`, admin!.access_token, { scopes: WRITER_SCOPES });
    const login = await client.call<{ access_token: string }>('POST', '/v1/auth/password/login', undefined, {
      user_tag: tag,
      password: STRONG_PASSWORD,
    });
    accounts.push({ uid: me!.uid, tag, token: login!.access_token });
  }

  // Each account listens on a socket and counts the `sent` notifications it receives.
  const received = new Map<string, number>(accounts.map((a) => [a.uid, 0]));
  const sockets = await Promise.all(
    accounts.map(
      (account) =>
        new Promise<WebSocket>((resolve, reject) => {
          const ws = new WebSocket(`${service!.url.replace('http', 'ws')}/v1/ws/v1`, {
            headers: { authorization: `Bearer ${account.token}` },
          });
          ws.on('message', (data: Buffer) => {
            const frame = JSON.parse(data.toString()) as { type: string; event?: { type: string } };
            if (frame.type === 'ready') resolve(ws);
            if (frame.type === 'notification' && frame.event?.type === 'sent')
              received.set(account.uid, received.get(account.uid)! + 1);
          });
          ws.once('error', reject);
        }),
    ),
  );

  const sent = new Map<string, number>(accounts.map((a) => [a.uid, 0]));
  // Each posted message with someone allowed to read it (its recipient).
  const posted: { id: string; reader: Account }[] = [];
  const samples: { at: number; rss: number }[] = [];
  const started = Date.now();
  const end = started + SECONDS * 1000;
  const sampler = setInterval(
    () => samples.push({ at: (Date.now() - started) / 1000, rss: rssMiB(service!.pid) }),
    2000,
  );

  const worker = async (index: number) => {
    for (let i = 0; Date.now() < end; i++) {
      const author = accounts[(index + i) % accounts.length]!;
      const reader = accounts[(index + i + 1) % accounts.length]!;
      switch (i % 6) {
        case 0:
        case 1: {
          // Now and then a reply to a message the author received.
          const mine = posted.filter((p) => p.reader === author);
          const parent = i % 3 === 0 ? mine[mine.length - 1]?.id : undefined;
          const result = await client.call<{ ok: boolean; message: { id: string } }[]>(
            'POST',
            '/v1/messages',
            author.token,
            { content: `soak ${index} ${i} lorem ipsum`, recipients: [reader.tag], parent_id: parent },
          );
          if (result?.[0]?.ok) {
            posted.push({ id: result[0].message.id, reader });
            sent.set(reader.uid, sent.get(reader.uid)! + 1);
          }
          break;
        }
        case 2:
          if (posted.length > 0) {
            const { id, reader: allowed } = posted[i % posted.length]!;
            await client.call('GET', `/v1/messages/${id}`, allowed.token);
          }
          break;
        case 3:
          await client.call('GET', '/v1/messages/timeline?limit=15', author.token);
          break;
        case 4:
          await client.call('GET', `/v1/messages/${i % 2 ? 'inbox' : 'history'}`, author.token);
          break;
        default:
          await client.call('GET', '/v1/messages/search?q=lorem&limit=10', author.token);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, (_, index) => worker(index)));
  clearInterval(sampler);

  // Live delivery settles within a few seconds; then every socket has had every `sent` for it.
  const settle = Date.now() + 15_000;
  while ([...sent].some(([uid, count]) => received.get(uid)! < count) && Date.now() < settle)
    await sleep(200);
  for (const ws of sockets) ws.close();

  const middle = rssOf(samples.filter((s) => s.at >= SECONDS / 3 && s.at < (2 * SECONDS) / 3));
  const last = rssOf(samples.filter((s) => s.at >= (2 * SECONDS) / 3));
  console.log(
    JSON.stringify({
      seconds: SECONDS,
      requests: client.requests,
      failures: client.failures.length,
      messages: posted.length,
      notifications: Object.fromEntries(
        [...sent].map(([uid, n]) => [uid, { sent: n, received: received.get(uid) }]),
      ),
      rss_mib: samples.map((s) => `${Math.round(s.at)}s:${s.rss}`).join(' '),
      rss_middle_third: middle,
      rss_last_third: last,
    }),
  );

  expect(client.failures).toEqual([]);
  expect(posted.length).toBeGreaterThan(0);
  for (const [uid, count] of sent) expect(received.get(uid)).toBe(count);
  if (SECONDS >= JUDGE_MEMORY_FROM_SECONDS) {
    expect(last.median).toBeLessThanOrEqual(middle.median * 1.1);
    expect(last.peak).toBeLessThanOrEqual(middle.peak * 1.1);
  }
});

/** Median and peak of RSS samples, MiB. */
function rssOf(window: { rss: number }[]): { median: number; peak: number } {
  const sorted = window.map((s) => s.rss).sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, peak: sorted.at(-1) ?? 0 };
}
