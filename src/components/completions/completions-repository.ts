// The only code that runs the completions' Cypher (cypher/completions/). Takes and returns plain objects.
import neo4j from 'neo4j-driver';
import type { Database } from '../../platform/neo4j/database.js';

export interface ModelBot {
  uid: string;
  user_tag: string;
  versions: string[];
  /** Whether it can answer: active, holding messages.read and messages.write (find-model-bot.cypher). */
  answers: boolean;
  /** Only to word the refusal of one that cannot. */
  deactivated: boolean;
}

export async function findModelBot(db: Database, tag: string): Promise<ModelBot | null> {
  const [row] = await db.read('completions/find-model-bot', { tag_folded: tag.toLowerCase() });
  if (!row) return null;
  return {
    uid: row.uid as string,
    user_tag: row.user_tag as string,
    versions: row.versions as string[],
    answers: row.answers as boolean,
    deactivated: row.deactivated as boolean,
  };
}

export interface ChainMessage {
  id: string;
  author_uid: string;
  content: string;
  tags: string[];
}

/** Reply chains (root first) ending at one of the bot's newest replies to the viewer that start with `lastAssistant`. */
export async function findContinuations(
  db: Database,
  params: { viewerUid: string; botUid: string; lastAssistant: string; maxDepth: number; candidates: number },
): Promise<ChainMessage[][]> {
  const rows = await db.read('completions/find-continuations', {
    viewer_uid: params.viewerUid,
    bot_uid: params.botUid,
    last_assistant: params.lastAssistant,
    max_depth: neo4j.int(params.maxDepth),
    candidates: neo4j.int(params.candidates),
  });
  return rows.map((row) => row.chain as ChainMessage[]);
}
