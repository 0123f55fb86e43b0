// The only code that runs the metrics' Cypher (cypher/admin/). Takes and returns plain objects.
import neo4j from 'neo4j-driver';
import type { Database } from '../../platform/neo4j/database.js';

export interface DayCountRow {
  date: string;
  uid: string;
  user_tag: string;
  count: number;
}

/** Open ends of the day range: the widest dates Neo4j's date() takes in every build. */
const EARLIEST_DAY = '0001-01-01';
const LATEST_DAY = '9999-12-31';

export async function countMessagesPerDay(
  db: Database,
  range: { from_date: string | null; to_date: string | null },
  limit: number,
): Promise<DayCountRow[]> {
  const rows = await db.read('admin/messages-per-day', {
    from_date: range.from_date ?? EARLIEST_DAY,
    to_date: range.to_date ?? LATEST_DAY,
    limit: neo4j.int(limit),
  });
  return rows.map((row) => ({
    date: row.date as string,
    uid: row.uid as string,
    user_tag: row.user_tag as string,
    count: row.count as number,
  }));
}
