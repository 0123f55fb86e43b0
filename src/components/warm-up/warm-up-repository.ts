// The warm-up's one statement of its own.
import type { Database } from '../../platform/neo4j/database.js';

export interface WarmUpSample {
  message_id: string;
  uid: string;
  user_tag: string;
  /** Another user, to post to; null when the author is the only one. */
  other_uid: string | null;
  /** A channel the author belongs to; null for none. */
  channel_id: string | null;
}

/** The newest message, its author, another user and a channel of the author's; null on an empty store. */
export async function sampleMessage(db: Database): Promise<WarmUpSample | null> {
  const [row] = await db.read('warm-up/sample-message');
  return row ? (row as unknown as WarmUpSample) : null;
}
