// Builds Lucene query strings for the full-text indexes from user input without ever passing the
// user's syntax through: every term is a quoted phrase, inside which Lucene knows no operator and
// only `"` and `\` are special (both are escaped). The index's analyzer then splits each phrase
// into words exactly as it split the stored content, so `a AND (` is the words "a" and "and", a
// lone `"` or `(` is no word at all (Lucene drops an empty phrase), and `don't` still finds "don't".

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
