// Builds Lucene query strings for the full-text indexes from user input without ever passing the
// user's syntax through: every term is a quoted phrase, inside which Lucene knows no operator and
// only `"` and `\` are special (both are escaped). The index's analyzer then splits each phrase
// into words exactly as it split the stored content, so `a AND (` is the words "a" and "and", a
// lone `"` or `(` is no word at all (Lucene drops an empty phrase), and `don't` still finds "don't".
// The one exception is a word prefix (user search), built from words cut out here, see below.

function quoted(term: string): string {
  return `"${term.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The whitespace-separated pieces of a text, each once, in order. */
export function chunksOf(text: string): string[] {
  return [...new Set(text.split(/\s+/).filter((chunk) => chunk.length > 0))];
}

/** Every term must occur (`+"a" +"b"`); null when there is no term. */
export function allTerms(terms: readonly string[]): string | null {
  const distinct = [...new Set(terms)];
  return distinct.length === 0 ? null : distinct.map((term) => `+${quoted(term)}`).join(' ');
}

/** Any term may occur (`"a" "b"`, OR being the default operator); null when there is no term. */
export function anyTerms(terms: readonly string[]): string | null {
  const distinct = [...new Set(terms)];
  return distinct.length === 0 ? null : distinct.map(quoted).join(' ');
}

// Word prefixes cannot be phrases: Lucene does not analyse a prefix term (`ada*`), it compares it
// with the stored words as given. So the text is cut into words here the way the index's standard
// tokenizer (UAX #29) cuts names: runs of letters, marks, digits and `_`, joined across a single
// `'`, `’` or `.` (O’Brien, J.R.R.), split at anything else (Jean-Luc is "jean" and "luc"), each
// Han or Hiragana character a word of its own; then lower-cased, as the analyzer lower-cases.
const NAME_WORD = /[\p{L}\p{M}\p{N}_]+(?:['’.][\p{L}\p{M}\p{N}_]+)*/gu;
const ONE_CHARACTER_WORDS = /[\p{Script=Han}\p{Script=Hiragana}]/gu;
// QueryParser's operators and syntax; the words above hold none, and escaping keeps it that way.
const LUCENE_SYNTAX = /[\\+\-!():^[\]"{}~*?|&/\s]/g;

/** The distinct words of a text, lower-case, as the standard tokenizer would store them. */
export function wordsOf(text: string): string[] {
  const spaced = text.normalize('NFC').replace(ONE_CHARACTER_WORDS, ' $& ').toLowerCase();
  return [...new Set(spaced.match(NAME_WORD) ?? [])];
}

/** Every word must begin some stored word (`+ada* +lov*`); null when the text has no word. */
export function allWordPrefixes(text: string): string | null {
  const words = wordsOf(text);
  return words.length === 0
    ? null
    : words.map((word) => `+${word.replace(LUCENE_SYNTAX, (c) => `\\${c}`)}*`).join(' ');
}
