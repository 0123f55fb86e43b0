// A Neo4j cluster is reached with a neo4j:// URI: the driver then asks the server for a routing
// table and sends read transactions to readers and write transactions to the writer. The embedded
// server answers routing requests as a one-member cluster, so the whole service runs through the
// routing driver here: writes, the reads that follow them, and the event log's replay.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;

beforeAll(async () => {
  const bolt = process.env.SKEIN_TEST_NEO4J_URI!;
  api = await startTestServer({ NEO4J_URI: bolt.replace(/^bolt:/, 'neo4j:') });
});

afterAll(async () => {
  await api.close();
});

describe('a neo4j:// (routing) URI', () => {
  it('when a message is posted and read back at once, then the read sees the write', async () => {
    const [author, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const message = await postMessage(api, author.token, { content: 'routed', recipients: [reader.tag] });
    const read = await api.request<{ content: string }>('GET', `/v1/messages/${message.id}`, {
      token: reader.token,
    });
    expect(read.status).toBe(200);
    expect(read.body.content).toBe('routed');
    const events = await api.request<{ notifications: { event: { type: string } }[] }>(
      'GET',
      '/v1/notifications',
      { token: reader.token },
    );
    expect(events.body.notifications.map((n) => n.event.type)).toEqual(['sent']);
  });
});
