// Where a completion's turns go (decision 033). A client re-sends the whole conversation each time;
// when its history (the turns up to the last assistant turn) is a thread of the caller's and the
// bot's messages from its root down, the new turns reply to that thread's last bot reply, so a
// conversation stays one thread. Otherwise the turns start a new thread, whose first message (the
// prelude) carries the system text and the history written out, so the bot still reads them.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { PRELUDE_TAG, preludeText, type ChatPrompt, type PlainTurn } from './chat-turns.js';
import { findContinuations, type ChainMessage } from './completions-repository.js';

/** How many of the bot's matching replies are compared, newest first. */
const CANDIDATES = 10;

export interface TurnPlace {
  /** The bot reply the turns answer, or null for a new thread. */
  parent_id: string | null;
  /** The new thread's first message, when it has one. */
  prelude: string | null;
}

export async function placeTurns(
  ctx: AppContext,
  caller: Caller,
  botUid: string,
  prompt: ChatPrompt,
): Promise<TurnPlace> {
  const { system, history } = prompt;
  const last = history.at(-1);
  if (last && last.text.trim() !== '') {
    const chains = await findContinuations(ctx.db, {
      viewerUid: caller.uid,
      botUid,
      lastAssistant: last.text.trim(),
      maxDepth: history.length + 1,
      candidates: CANDIDATES,
    });
    const held = chains.find((chain) => holds(chain, system, history, caller.uid, botUid));
    if (held) return { parent_id: held.at(-1)!.id, prelude: null };
  }
  const prelude = preludeText(system, history);
  return { parent_id: null, prelude: prelude === '' ? null : prelude };
}

/** Whether the chain (root first) is exactly the system text and the history, turn by turn. */
function holds(
  chain: ChainMessage[],
  system: string,
  history: PlainTurn[],
  callerUid: string,
  botUid: string,
): boolean {
  const [top, ...rest] = chain;
  if (!top) return false;
  const same = (message: ChainMessage, turn: PlainTurn | undefined): boolean => {
    if (!turn) return false;
    const sent = turn.text.trim();
    if (turn.role === 'user') return message.author_uid === callerUid && message.content.trim() === sent;
    // A reply cut by max_completion_tokens comes back as the client was given it: a prefix.
    return message.author_uid === botUid && sent !== '' && message.content.trim().startsWith(sent);
  };
  if (top.author_uid === callerUid && top.tags.includes(PRELUDE_TAG)) {
    const unplaced = history.length - rest.length;
    if (unplaced < 0 || top.content !== preludeText(system, history.slice(0, unplaced))) return false;
    return rest.every((message, i) => same(message, history[unplaced + i]));
  }
  if (system !== '' || chain.length !== history.length) return false;
  return chain.every((message, i) => same(message, history[i]));
}
