// The embedded Neo4j (neo4j/…/Launcher.java) keeps no copy of the statements the service runs. By
// default Neo4j 5's data collector is always collecting: it holds the last 8,192 statements with
// their parameters (message texts among them) in the JVM's heap, for `db.stats.retrieve`. Skein
// never reads them, and they were a third of the live heap after the peer run's seeding
// (docs/benchmarks.md, "Memory: the JVM and Node").
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

describe('the embedded Neo4j and the statements it ran', () => {
  it('when a message is posted, then the data collector has kept no statement', async () => {
    const writer = await registerWriter(api);
    await postMessage(api, writer.token, { content: 'a message nobody needs a copy of', public: true });

    // With Neo4j's default this lists every statement since the start, the post's among them.
    const kept = await api.ctx.db.runText(
      "CALL db.stats.retrieve('QUERIES') YIELD section, data RETURN section, data.query AS query",
    );
    expect(kept).toEqual([]);
  });
});
