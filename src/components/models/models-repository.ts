// The only code that runs the models' Cypher (cypher/models/). Takes and returns plain objects.
import type { Database } from '../../platform/neo4j/database.js';

export interface BotRow {
  uid: string;
  user_tag: string;
  display_name: string | null;
  /** ISO 8601 UTC. */
  created_at: string;
  versions: string[];
  modalities: string[];
  integrations: string[];
  /** The tag of the bot's first manager, or null for a bot nobody manages. */
  manager_tag: string | null;
}

/** The bots a caller may address (active, not banned), in case-insensitive tag order. */
export async function listBots(db: Database): Promise<BotRow[]> {
  const rows = await db.read('models/list-bots');
  return rows.map((row) => ({
    uid: row.uid as string,
    user_tag: row.user_tag as string,
    display_name: (row.display_name as string | null) ?? null,
    created_at: row.created_at as string,
    versions: row.versions as string[],
    modalities: row.modalities as string[],
    integrations: row.integrations as string[],
    manager_tag: (row.manager_tag as string | null) ?? null,
  }));
}
