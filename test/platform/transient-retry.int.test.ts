// A transaction that Neo4j rolls back for a transient reason is run again inside the service
// (transient-retry.ts). Two write transactions that lock the same two users in opposite orders make
// a real deadlock, which Neo4j breaks by failing one of them: both must still commit.
import { randomUUID } from 'node:crypto';
import { createMetrics } from '../../src/platform/metrics.js';
import { Database } from '../../src/platform/neo4j/database.js';

let db: Database;
const metrics = createMetrics({ defaults: false });

beforeAll(() => {
  db = Database.connect({
    uri: process.env.SKEIN_TEST_NEO4J_URI!,
    user: 'neo4j',
    password: process.env.SKEIN_TEST_NEO4J_PASSWORD!,
    database: undefined,
  });
  db.instrument(metrics);
});

afterAll(async () => {
  await db.close();
});

async function writeRetries(): Promise<number> {
  const metric = await metrics.neo4jRetries.get();
  return metric.values.find((value) => value.labels.mode === 'write')?.value ?? 0;
}

describe('a write transaction rolled back by a deadlock', () => {
  it('when two transactions lock two users in opposite orders, then both commit, one of them on a second attempt', async () => {
    const [a, b] = [`retry-${randomUUID()}`, `retry-${randomUUID()}`];
    await db.runText('CREATE (:User {uid: $a}), (:User {uid: $b})', { a, b });
    const before = await writeRetries();

    // Each transaction locks its first user, then waits until the other has locked its own.
    let arrived = 0;
    let release!: () => void;
    const bothLocked = new Promise<void>((resolve) => (release = resolve));
    let attempts = 0;
    const lockInOrder = (first: string, second: string, mark: string) =>
      db.inWrite(async (tx) => {
        attempts++;
        await tx.run('users/set-user-fields', { uid: first, changes: { bio: mark } });
        if (++arrived === 2) release();
        await bothLocked;
        await tx.run('users/set-user-fields', { uid: second, changes: { bio: mark } });
        return mark;
      });

    await expect(Promise.all([lockInOrder(a, b, 'ab'), lockInOrder(b, a, 'ba')])).resolves.toEqual([
      'ab',
      'ba',
    ]);
    expect(attempts).toBe(3);
    expect(await writeRetries()).toBe(before + 1);
    // Whichever committed last wrote both users: the retried transaction ran whole, not half.
    const rows = await db.runText('MATCH (u:User) WHERE u.uid IN [$a, $b] RETURN DISTINCT u.bio AS bio', {
      a,
      b,
    });
    expect(rows).toHaveLength(1);
    await db.runText('MATCH (u:User) WHERE u.uid IN [$a, $b] DELETE u', { a, b });
  });

  it('when the work fails for a reason that is not transient, then it runs once and the error reaches the caller', async () => {
    const before = await writeRetries();
    let attempts = 0;
    await expect(
      db.inWrite(() => {
        attempts++;
        return Promise.reject(new Error('not transient'));
      }),
    ).rejects.toThrow('not transient');
    expect(attempts).toBe(1);
    expect(await writeRetries()).toBe(before);
  });
});
