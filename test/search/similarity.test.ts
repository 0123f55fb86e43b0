// The similar-messages score (src/components/search/similarity.ts) on hand-computed examples, and
// the Lucene query builder that keeps user syntax out of full-text queries.
import { describe, expect, it } from '@jest/globals';
import { allTerms, anyTerms } from '../../src/components/search/lucene-query.js';
import { ngramCounts, similarity, tokenize } from '../../src/components/search/similarity.js';

describe('tokenize', () => {
  it('when text mixes case, punctuation, digits and accents, then tokens are lower-case runs of letters and digits', () => {
    expect(tokenize("Don't STOP, 2 cafés! naïve-ish")).toEqual([
      'don',
      't',
      'stop',
      '2',
      'cafés',
      'naïve',
      'ish',
    ]);
  });

  it('when text is composed differently (NFD vs NFC), then the tokens are the same', () => {
    expect(tokenize('cafe\u0301')).toEqual(tokenize('caf\u00e9'));
  });

  it('when text has no letters or digits, then there is no token', () => {
    expect(tokenize('"" (( AND )) ?!')).toEqual(['and']);
    expect(tokenize('"(*)"')).toEqual([]);
  });
});

describe('ngramCounts', () => {
  it('when an n-gram repeats, then it is counted with multiplicity', () => {
    const counts = ngramCounts(['a', 'b', 'a', 'b'], 2);
    expect(Object.fromEntries(counts)).toEqual({ 'a b': 2, 'b a': 1 });
  });
});

describe('similarity score = Σ_n n² · Σ_g min(C_s(g), C_c(g))', () => {
  it('when source "the cat sat" meets "the cat sat on the cat" with max_n 3, then the score is 20', () => {
    // Source tokens: the cat sat. Candidate tokens: the cat sat on the cat.
    // n=1: source {the:1, cat:1, sat:1}, candidate {the:2, cat:2, sat:1, on:1}
    //      Σ min = 1 + 1 + 1 = 3, weight 1 → 3
    // n=2: source {the cat:1, cat sat:1}, candidate {the cat:2, cat sat:1, sat on:1, on the:1}
    //      Σ min = 1 + 1 = 2, weight 4 → 8
    // n=3: source {the cat sat:1}, candidate {the cat sat:1, cat sat on:1, sat on the:1, on the cat:1}
    //      Σ min = 1, weight 9 → 9
    // total 3 + 8 + 9 = 20
    expect(similarity('the cat sat', 'the cat sat on the cat', 3)).toBe(20);
  });

  it('when max_n is 1, then only shared words count (with multiplicity)', () => {
    // n=1 only: 3 (as above)
    expect(similarity('the cat sat', 'the cat sat on the cat', 1)).toBe(3);
    // source {the:2, cat:2}, candidate {the:2, cat:2, sat:1, on:1} → 2 + 2 = 4
    expect(similarity('the cat the cat', 'the cat sat on the cat', 1)).toBe(4);
  });

  it('when both messages repeat a word, then repetition amplifies the score up to the smaller count', () => {
    // source "go go go" {go:3; go go:2; go go go:1}, candidate "go go" {go:2; go go:1}
    // n=1: min(3,2) = 2 → 2; n=2: min(2,1) = 1 → 4; n=3: candidate has none → 0. Total 6.
    expect(similarity('go go go', 'go go', 3)).toBe(6);
    // Against "go" alone: n=1 min(3,1) = 1 → 1.
    expect(similarity('go go go', 'go', 3)).toBe(1);
  });

  it('when the same words come in another order, then only the shared unigrams count', () => {
    // n=1: a, b, c shared once each → 3; no bigram is shared ("a b","b c" vs "c b","b a").
    expect(similarity('a b c', 'c b a', 3)).toBe(3);
  });

  it('when case and punctuation differ, then they do not matter', () => {
    // tokens on both sides: hello world → n=1: 2, n=2: 1·4 → 6
    expect(similarity('Hello, World!', 'hello world', 2)).toBe(6);
  });

  it('when nothing is shared, or a side has no token, then the score is 0', () => {
    expect(similarity('alpha beta', 'gamma delta', 3)).toBe(0);
    expect(similarity('!!!', 'alpha', 3)).toBe(0);
  });

  it('when max_n exceeds the source length, then the longer n-grams add nothing', () => {
    // "a b": n=1 → 2, n=2 → 4; n=3..10 none → 6
    expect(similarity('a b', 'a b', 10)).toBe(6);
  });
});

describe('Lucene query builders', () => {
  it('when terms are given, then each is a quoted phrase, required (all) or optional (any), once', () => {
    expect(allTerms(['cat', 'mat', 'cat'])).toBe('+"cat" +"mat"');
    expect(anyTerms(['foo:bar', 'x-y'])).toBe('"foo:bar" "x-y"');
  });

  it('when a term holds a quote or a backslash, then it is escaped', () => {
    expect(anyTerms(['a"b\\c'])).toBe('"a\\"b\\\\c"');
  });

  it('when there is no term, then there is no query', () => {
    expect(allTerms([])).toBeNull();
    expect(anyTerms([])).toBeNull();
  });
});
