// What making a message private does to its channel inclusions (security finding #11). While a
// message is public anyone may include it in their own channels, and the members of those channels
// read it through the inclusion; once it is private, an inclusion whose adder could only see it
// because it was public would go on granting what the author just took back, in channels the author
// can neither see nor change. So when messages are made private, in the same transaction, every
// inclusion whose adder no longer sees the message goes: the adder still sees it when they wrote it,
// have a receivers edge on it, or belong to another channel whose inclusion stays (worked out to a
// fixed point, so that two strangers' channels do not keep each other alive). Inclusions recorded
// without their adder stay: nobody can say who made them.
import type { Tx } from '../../platform/neo4j/database.js';
import { recordMessageChange } from '../event-log/record-events.js';
import { findMessageInclusions, removeInclusions, type MessageInclusion } from './channels-repository.js';

/** The inclusions whose adder no longer sees the message without the public flag. */
export function inclusionsToEnd(inclusions: readonly MessageInclusion[]): MessageInclusion[] {
  const key = (messageId: string, channelId: string) => `${messageId} ${channelId}`;
  const kept = new Set(
    inclusions
      .filter((i) => i.added_by === null || i.adder_sees_it)
      .map((i) => key(i.message_id, i.channel_id)),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const i of inclusions) {
      if (kept.has(key(i.message_id, i.channel_id))) continue;
      if (i.adder_channel_ids.some((other) => kept.has(key(i.message_id, other)))) {
        kept.add(key(i.message_id, i.channel_id));
        grew = true;
      }
    }
  }
  return inclusions.filter((i) => !kept.has(key(i.message_id, i.channel_id)));
}

/**
 * Ends the inclusions of the (now private) messages that their adders could only make because the
 * messages were public. Those who saw the messages before hear `message.updated` (channels), as for
 * PATCH /v1/messages/{id}/channels.
 */
export async function endPublicOnlyInclusions(
  tx: Tx,
  actorUid: string,
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  const ending = inclusionsToEnd(await findMessageInclusions(tx, messageIds));
  if (ending.length === 0) return;
  const affected = [...new Set(ending.map((i) => i.message_id))];
  await recordMessageChange(tx, actorUid, 'message.updated', affected, ['channels']);
  await removeInclusions(tx, ending);
}
