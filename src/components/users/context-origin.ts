// The rule for a bot's `context_origin_id` (the spec's "id of a root message whose default-outgoing
// chain is the bot's starting context"; docs/decisions/026-conversation-context.md), one place for
// the three writes that set it: the bot's own profile edit, a manager's edit, and creating a bot.
// A non-null value must name a root message that the bot itself may see: one it may not see answers
// the 404 of a missing message (so the answer tells nothing about messages the bot cannot see), one
// with a reply parent the bot may see is 422. A parent the bot may not see counts as none
// (cypher/fragments/seen-as-root.cypher), so the 422 never tells that a hidden parent exists. It applies to bots only: a non-null value on an
// account that is not a bot once the write is done is 422. null always clears it.
// The check runs in the write's transaction, after the write, on the account as written, so that
// is_bot sent in the same request counts and a refused value leaves nothing changed.
import { messageNotFound, validationError } from '../../platform/errors.js';
import type { InputLocation } from '../../platform/validation.js';
import { judgeContextOrigin, type UserCheck } from './users-repository.js';

interface OriginInput {
  context_origin_id?: string | null | undefined;
  bot?: { context_origin_id?: string | null | undefined } | undefined;
}

/** Where the request named the origin, for a 422's `loc`: the top-level field wins, as in profileChanges. */
function originLoc(input: OriginInput, inputAt: InputLocation): string[] {
  return input.context_origin_id !== undefined
    ? [inputAt, 'context_origin_id']
    : [inputAt, 'bot', 'context_origin_id'];
}

/**
 * The check of a write that sets a context origin (`changes.context_origin_id` a string), or
 * undefined when the write sets none or clears it.
 */
export function contextOriginCheck(
  changes: Record<string, unknown>,
  input: OriginInput,
  inputAt: InputLocation,
): UserCheck | undefined {
  const origin = changes.context_origin_id;
  if (typeof origin !== 'string') return undefined;
  const loc = originLoc(input, inputAt);
  return async (tx, written) => {
    if (!written.is_bot) {
      throw validationError([
        { loc, msg: 'a context origin is a bot’s: set is_bot to true, or send null', type: 'not_a_bot' },
      ]);
    }
    const judged = await judgeContextOrigin(tx, written.uid, origin);
    if (judged === 'not_found') throw messageNotFound();
    if (judged === 'not_root') {
      throw validationError([
        {
          loc,
          msg: 'must name a root message (one without a reply parent the bot may see)',
          type: 'not_a_root',
        },
      ]);
    }
  };
}
