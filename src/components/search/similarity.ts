// The similar-messages score, as a pure function so that it can be checked by hand.
//
// Tokens: the text is NFKC-normalised and lower-cased, and every maximal run of Unicode letters,
// combining marks and digits is one token ("Don't stop, 2 cafés!" → don, t, stop, 2, cafés).
//
// For each n in 1..max_n, let C_s(g) and C_c(g) be how many times the n-gram g (n consecutive
// tokens) occurs in the source and in the candidate. Then
//
//   score = Σ_{n=1..max_n} n² · Σ_g min(C_s(g), C_c(g))
//
// so a shared single word counts 1, a shared pair of consecutive words 4 more, a shared triple 9
// more, and so on; an n-gram occurring k times in both messages counts k times (repetition
// amplifies the score, but only as far as both messages repeat it).

const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;

export const SIMILARITY_FORMULA =
  'score = Σ_{n=1..max_n} n² · Σ_g min(C_s(g), C_c(g)), where g ranges over the n-grams (n consecutive ' +
  'tokens) and C_s(g), C_c(g) count the occurrences of g in the source and in the candidate. Tokens are ' +
  'the maximal runs of Unicode letters, marks and digits of the NFKC-normalised, lower-cased content.';

export function tokenize(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(TOKEN) ?? [];
}

/** Occurrence counts of the n-grams of `tokens`; an n-gram is keyed by its tokens joined with a space. */
export function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const gram = tokens.slice(i, i + n).join(' ');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** The n-gram counts of a source for n = 1..maxN, computed once and reused for every candidate. */
export type NgramProfile = Map<string, number>[];

export function ngramProfile(tokens: readonly string[], maxN: number): NgramProfile {
  const profile: NgramProfile = [];
  for (let n = 1; n <= maxN; n++) profile.push(ngramCounts(tokens, n));
  return profile;
}

/**
 * The score above, for a source profile (n = 1..max_n) and a candidate's tokens. Only the
 * candidate's n-grams that occur in the source are counted, and an n-gram starting at a position is
 * extended only while the shorter one occurs in the source (a longer one then cannot), so the work
 * is at most tokens × max_n and usually near tokens.
 */
export function similarityScore(source: NgramProfile, candidate: readonly string[]): number {
  const shared: Map<string, number>[] = source.map(() => new Map<string, number>());
  for (let i = 0; i < candidate.length; i++) {
    let gram = '';
    for (let n = 1; n <= source.length && i + n <= candidate.length; n++) {
      gram = n === 1 ? candidate[i]! : `${gram} ${candidate[i + n - 1]!}`;
      if (!source[n - 1]!.has(gram)) break;
      const counts = shared[n - 1]!;
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
    }
  }
  let score = 0;
  shared.forEach((counts, index) => {
    const n = index + 1;
    let overlap = 0;
    for (const [gram, count] of counts) overlap += Math.min(count, source[index]!.get(gram)!);
    score += n * n * overlap;
  });
  return score;
}

/** Convenience for two texts (used by tests and anyone scoring one pair). */
export function similarity(source: string, candidate: string, maxN: number): number {
  return similarityScore(ngramProfile(tokenize(source), maxN), tokenize(candidate));
}
