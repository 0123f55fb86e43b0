// GET /metrics (issue "several instances … and the metrics to run them"): Prometheus text for an
// operator, off unless SKEIN_METRICS_TOKEN is set, and then only for that bearer token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket } from '../support/ws-client.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
let api: TestServer;
let dark: TestServer;

beforeAll(async () => {
  [api, dark] = await Promise.all([startTestServer({ SKEIN_METRICS_TOKEN: TOKEN }), startTestServer()]);
});

afterAll(async () => {
  closeAllSockets();
  await Promise.all([api.close(), dark.close()]);
});

async function scrape(): Promise<string> {
  const res = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

function valueOf(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('GET /metrics', () => {
  it('when no token is configured, then 404; with a wrong or missing token, then 401', async () => {
    expect((await fetch(`${dark.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${api.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${api.url}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'not_authenticated' });
  });

  it('when requests, posts and sockets happen, then their series count them by route template', async () => {
    const [author, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const before = await scrape();
    const socket = await openSocket(api, { token: reader.token });
    expect(await socket.next()).toMatchObject({ type: 'ready' });
    const message = await postMessage(api, author.token, { content: 'counted', recipients: [reader.tag] });
    expect(await socket.next()).toMatchObject({ type: 'notification' });
    await api.request('GET', `/v1/messages/${message.id}`, { token: author.token });
    const after = await scrape();

    const read =
      'skein_http_requests_total{method="GET",route="/v1/messages/:message_id",status="200",service="skein"}';
    expect(valueOf(after, read)).toBeGreaterThan(valueOf(before, read));
    // Numbering is done by whichever instance's sequencer gets there first (the other server here too).
    expect(after).toContain('skein_events_numbered_total');
    expect(valueOf(after, 'skein_realtime_open_feeds')).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'skein_events_delivered_total{transport="socket"')).toBeGreaterThanOrEqual(1);
    expect(after).toContain('skein_neo4j_transaction_duration_seconds_bucket');
    expect(after).toContain('skein_webhook_queue_depth');
    // Ids never become label values: one series per route template, not per message.
    expect(after).not.toContain(message.id);
  });
});
