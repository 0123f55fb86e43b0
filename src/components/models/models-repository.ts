// The only code that runs the models' Cypher (cypher/models/). Takes and returns plain objects.
import type { Database } from '../../platform/neo4j/database.js';

export interface BotRow {
  user_tag: string;
  /** ISO 8601 UTC. */
  created_at: string;
  versions: string[];
  /** The tag of the bot's first manager, or null for a bot nobody manages. */
  manager_tag: string | null;
}

export async function listBots(db: Database): Promise<BotRow[]> {
  const rows = await db.read('models/list-bots');
  return rows.map((row) => ({
    user_tag: row.user_tag as string,
    created_at: row.created_at as string,
    versions: row.versions as string[],
    manager_tag: (row.manager_tag as string | null) ?? null,
  }));
}
