// How the turns of a chat-completions request map onto Skein messages (decision 033): the system
// and developer turns become one first message, the "prelude"; the turns up to the last assistant
// turn are the history a continuing thread must hold; the user turns after it are posted as the
// caller's, as a chain of replies, and the bot answers the last one.
import { validationError } from '../../platform/errors.js';
import { MAX_CONTENT_CHARS, MAX_ITEMS_PER_POST } from '../messages/messages.schemas.js';
import type { ChatTurn } from './completions.schemas.js';

/** The tag of a thread's prelude: the system text, and any earlier turns Skein could not place. */
export const PRELUDE_TAG = 'chat:system';

export interface PlainTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface ChatPrompt {
  /** The system and developer turns, in order, joined by a blank line ('' when none). */
  system: string;
  /** The turns before the final user turns: empty, or ending with an assistant turn. */
  history: PlainTurn[];
  /** The user turns after the last assistant turn (at least one), to post. */
  finals: string[];
}

/**
 * What a request costs on the post limit, read from its body as sent, before it is validated (the
 * route's accountLimitCost): one point per user turn after the last assistant turn, each posted as
 * a message; at least one, and no more than a request may post. The prelude, when one is posted,
 * is charged by the use case, which alone knows whether the history continues a thread.
 */
export function postedTurnCount(body: unknown): number {
  const turns =
    body && typeof body === 'object' && 'messages' in body && Array.isArray(body.messages)
      ? (body.messages as unknown[])
      : [];
  const roles = turns.map((turn) =>
    turn && typeof turn === 'object' && 'role' in turn ? turn.role : undefined,
  );
  const finals = roles.slice(roles.lastIndexOf('assistant') + 1).filter((role) => role === 'user');
  return Math.min(Math.max(finals.length, 1), MAX_ITEMS_PER_POST);
}

export function textOf(turn: ChatTurn): string {
  return typeof turn.content === 'string' ? turn.content : turn.content.map((part) => part.text).join('\n');
}

export function readPrompt(turns: ChatTurn[]): ChatPrompt {
  const system: string[] = [];
  const plain: PlainTurn[] = [];
  turns.forEach((turn) => {
    const text = textOf(turn);
    if (turn.role === 'system' || turn.role === 'developer') system.push(text);
    else plain.push({ role: turn.role, text });
  });
  const lastAssistant = plain.map((turn) => turn.role).lastIndexOf('assistant');
  const finals = plain.slice(lastAssistant + 1).map((turn) => turn.text);
  if (finals.length === 0) {
    throw validationError([
      {
        loc: ['body', 'messages'],
        msg: 'the last turn must be a user turn: the bot answers it',
        type: 'value_error',
      },
    ]);
  }
  turns.forEach((turn, index) => {
    if (turn.role === 'user' && textOf(turn).trim() === '') {
      throw validationError([
        {
          loc: ['body', 'messages', index, 'content'],
          msg: 'a user turn must hold text',
          type: 'value_error',
        },
      ]);
    }
  });
  finals.forEach((text) => assertFits(text, ['body', 'messages']));
  return { system: system.join('\n\n'), history: plain.slice(0, lastAssistant + 1), finals };
}

/**
 * The prelude's content: the system text, then the earlier turns that no thread held, written out
 * with their roles so the bot still reads them (a client's few-shot examples, an edited history).
 */
export function preludeText(system: string, unplaced: PlainTurn[]): string {
  const transcript = unplaced.map((turn) => `[${turn.role}]\n${turn.text}`);
  return [system, ...transcript].filter((part) => part !== '').join('\n\n');
}

export function assertFits(text: string, loc: (string | number)[]): void {
  if (text.length > MAX_CONTENT_CHARS) {
    throw validationError([
      {
        loc,
        msg: `a turn becomes a message, which holds at most ${MAX_CONTENT_CHARS} characters`,
        type: 'too_big',
      },
    ]);
  }
}
