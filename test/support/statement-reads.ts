// Counts the statements a service's Database reads while some work runs, through the API only: the
// reads are noted on their way to the real database. For tests that bound a cost by statements
// rather than by time.
import type { Database, Params } from '../../src/platform/neo4j/database.js';

/**
 * Runs `work`, adding up `count(name, params)` for every read statement `db` runs meanwhile; answers
 * the sum.
 */
export async function readsDuring(
  db: Database,
  count: (name: string, params: Params) => number,
  work: () => Promise<unknown>,
): Promise<number> {
  const read = db.read.bind(db);
  let total = 0;
  db.read = (name, params = {}) => {
    total += count(name, params);
    return read(name, params);
  };
  try {
    await work();
  } finally {
    Reflect.deleteProperty(db, 'read');
  }
  return total;
}
