// The webhook planner writes only when a round is worth it (cypher/fragments/planning-due.cypher):
// with no live endpoint anywhere, a numbered round costs it no lock and no commit. Other test files
// share this database and verify endpoints of their own, so each case runs the real statements
// inside one transaction that turns every endpoint off first, and rolls everything back at the end:
// no other test sees any of it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import neo4j, { type Driver, type Transaction } from 'neo4j-driver';
import { cypher } from '../../src/platform/neo4j/cypher.js';
import { postMessage, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
let driver: Driver;

beforeAll(async () => {
  api = await startTestServer();
  driver = neo4j.driver(
    process.env.SKEIN_TEST_NEO4J_URI!,
    neo4j.auth.basic('neo4j', process.env.SKEIN_TEST_NEO4J_PASSWORD!),
  );
  // At least one numbered event in the log: a post to a recipient records one (`sent`), and is
  // answered once it is numbered and settled.
  const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
  await postMessage(api, writer.token, { content: 'an event for the log', recipients: [reader.tag] });
});

afterAll(async () => {
  await driver.close();
  await api.close();
});

/** Turns off every endpoint not yet off, in `tx`; answers how many it turned off. */
async function turnOffLiveEndpoints(tx: Transaction): Promise<number> {
  const result = await tx.run(
    `MATCH (c:Contact {kind: 'endpoint'}) WHERE c.disabled_at IS NULL SET c.disabled_at = datetime()`,
  );
  return result.summary.counters.updates().propertiesSet;
}

/** Runs `work` in a write transaction in which no endpoint is live, then rolls it all back. */
async function withEveryEndpointOff(work: (tx: Transaction) => Promise<void>): Promise<void> {
  const session = driver.session();
  const tx = session.beginTransaction();
  try {
    await turnOffLiveEndpoints(tx);
    await work(tx);
  } finally {
    await tx.rollback();
    await session.close();
  }
}

const plan = (tx: Transaction, limit: number) =>
  tx.run(cypher('webhooks/plan-deliveries'), { limit: neo4j.int(limit), heard: neo4j.int(0) });

const pollSees = async (tx: Transaction, limit: number) =>
  (await tx.run(cypher('webhooks/find-work'), { limit: neo4j.int(limit), only_uids: [] })).records[0]!.get(
    'behind',
  ) as boolean;

describe('the webhook planner without a live endpoint', () => {
  it('when no endpoint is live and the planner is less than a batch behind, then a round neither locks nor writes, and the poll sees nothing to plan', async () => {
    await withEveryEndpointOff(async (tx) => {
      // A batch larger than any lag: only a live endpoint could make the round worth its write. The
      // statements read committed data, so an endpoint that another test file verifies meanwhile is
      // live for them: such an attempt proves nothing, and is made again with that endpoint off too.
      for (let attempt = 1; ; attempt += 1) {
        const round = await plan(tx, 1_000_000_000);
        const sees = await pollSees(tx, 1_000_000_000);
        if ((await turnOffLiveEndpoints(tx)) > 0 && attempt < 5) continue;
        expect(round.records).toHaveLength(0);
        expect(round.summary.counters.containsUpdates()).toBe(false);
        expect(sees).toBe(false);
        return;
      }
    });
  });

  it('when the planner lags a full batch behind, then the round runs anyway, so a later endpoint is caught up with in one round', async () => {
    await withEveryEndpointOff(async (tx) => {
      await tx.run(`MERGE (p:WebhookPlanner {id: 'planner'}) SET p.head = 0`);
      expect(await pollSees(tx, 1)).toBe(true);
      const round = await plan(tx, 1);
      expect(round.records).toHaveLength(1);
      expect(neo4j.integer.toNumber(round.records[0]!.get('advanced') as number)).toBe(1);
    });
  });

  it('when an endpoint is live, then every round runs', async () => {
    await withEveryEndpointOff(async (tx) => {
      await tx.run(
        `CREATE (:Contact {kind: 'endpoint', value: 'https://hooks.example.test/gate', verified_at: datetime()})`,
      );
      const round = await plan(tx, 1_000_000_000);
      expect(round.records).toHaveLength(1);
      expect(round.summary.counters.containsUpdates()).toBe(true);
    });
  });
});
