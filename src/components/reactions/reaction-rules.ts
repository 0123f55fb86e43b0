// What a reaction may be and how many a message holds (docs/decisions/013-reactions.md), in one
// place for REST, GraphQL and the use cases.
//
// A reaction is exactly one emoji, as an emoji picker inserts it: one grapheme cluster that is a
// pictograph (with an optional skin tone), a ZWJ sequence of those (👩‍💻, 🏳️‍🌈), a flag (two
// regional indicators, or a subdivision tag sequence), or a keycap (1️⃣). Text, two emoji, or any
// mark left over is refused. The same emoji typed with or without the emoji variation selector
// (U+FE0F: "❤" and "❤️") is one reaction: each is stored and compared in one spelling, with the
// selector exactly on the pictographs that are text by default and carry no skin tone, which is how
// Unicode's fully-qualified emoji are written.
import { AppError } from '../../platform/errors.js';

/** The longest emoji Unicode recommends (a kiss with two skin tones) is 35 bytes of UTF-8. */
export const MAX_REACTION_BYTES = 40;
/** Different reactions a message holds, as the reacting caller is shown them. */
export const MAX_DISTINCT_REACTIONS = 50;
/** Reactions one user holds on one message. */
export const MAX_OWN_REACTIONS = 20;

export const REACTION_RULE =
  `one emoji (a pictograph with an optional skin tone, a ZWJ sequence, a flag or a keycap), at most ` +
  `${MAX_REACTION_BYTES} bytes of UTF-8`;

const ZWJ = '\u200D';
const EMOJI_SELECTOR = '\uFE0F';
const KEYCAP = '\u20E3';
const BLACK_FLAG = '\u{1F3F4}';
const CANCEL_TAG = '\u{E007F}';

const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const EMOJI_BY_DEFAULT = /^\p{Emoji_Presentation}$/u;
const SKIN_TONE = /^\p{Emoji_Modifier}$/u;
const REGIONAL_INDICATOR = /^\p{Regional_Indicator}$/u;
const KEYCAP_BASE = /^[0-9#*]$/;
const TAG_CHARACTER = /^[\u{E0020}-\u{E007E}]$/u;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** One pictograph of a ZWJ sequence in its stored spelling, or null when it is not one. */
function canonicalPictograph(part: string): string | null {
  const [base, ...rest] = [...part];
  if (base === undefined || !PICTOGRAPH.test(base)) return null;
  const marks = rest.filter((point) => point !== EMOJI_SELECTOR);
  if (rest.length - marks.length > 1 || marks.length > 1) return null;
  const [tone] = marks;
  if (tone !== undefined) return SKIN_TONE.test(tone) ? base + tone : null;
  return EMOJI_BY_DEFAULT.test(base) ? base : base + EMOJI_SELECTOR;
}

/** The emoji's stored spelling (see the header), or null when `text` is not one emoji. */
export function canonicalReaction(text: string): string | null {
  // Cheap refusal of long input before segmenting it; the exact bound is checked on the result.
  if (text.length === 0 || text.length > MAX_REACTION_BYTES) return null;
  if ([...graphemes.segment(text)].length !== 1) return null;
  const points = [...text];
  let canonical: string | null;
  if (points.length === 2 && points.every((point) => REGIONAL_INDICATOR.test(point))) {
    canonical = text;
  } else if (
    KEYCAP_BASE.test(points[0]!) &&
    points.at(-1) === KEYCAP &&
    (points.length === 2 || (points.length === 3 && points[1] === EMOJI_SELECTOR))
  ) {
    canonical = points[0]! + EMOJI_SELECTOR + KEYCAP;
  } else if (
    points[0] === BLACK_FLAG &&
    points.at(-1) === CANCEL_TAG &&
    points.length > 2 &&
    points.slice(1, -1).every((point) => TAG_CHARACTER.test(point))
  ) {
    canonical = text;
  } else {
    const parts = text.split(ZWJ).map(canonicalPictograph);
    canonical = parts.every((part) => part !== null) ? parts.join(ZWJ) : null;
  }
  return canonical !== null && Buffer.byteLength(canonical, 'utf8') <= MAX_REACTION_BYTES ? canonical : null;
}

/** What a message holds under the lock of a reaction change (cypher/reactions/read-state.cypher). */
export interface ReactionRoom {
  /** The caller's own reactions on it. */
  mine: string[];
  /** The different reactions on it that the caller is shown. */
  shown: string[];
}

/**
 * Refuses a new reaction past either cap. The message's cap counts the reactions the caller is
 * shown, never hidden ones (a BCC recipient's), so its answer tells nothing the caller cannot see.
 */
export function assertRoomForReaction(room: ReactionRoom, reaction: string): void {
  if (room.mine.length >= MAX_OWN_REACTIONS) {
    throw new AppError(
      'too_many_own_reactions',
      `You have ${MAX_OWN_REACTIONS} reactions on this message already; remove one first.`,
    );
  }
  if (!room.shown.includes(reaction) && room.shown.length >= MAX_DISTINCT_REACTIONS) {
    throw new AppError(
      'too_many_reactions',
      `This message has ${MAX_DISTINCT_REACTIONS} different reactions already; react with one of them.`,
    );
  }
}
