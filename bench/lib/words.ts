// Message text for seeded stores: words of a made-up vocabulary drawn with a Zipf distribution (a
// few words are everywhere, most are rare, as in real text), so full-text search and "similar
// messages" have realistic work to do. A message's text depends only on its index and the seed, so
// it is computed while writing and never held for the whole store.
import { Prng } from './prng.js';

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'te',
  'vo',
  'zi',
  'pa',
  'do',
  'fe',
  'gu',
  'hi',
  'jo',
  'be',
];

/** 256 two-syllable words, then 4096 three-syllable ones: 4352 distinct words. */
function buildVocabulary(): string[] {
  const words: string[] = [];
  for (let a = 0; a < 16; a++) for (let b = 0; b < 16; b++) words.push(SYLLABLES[a]! + SYLLABLES[b]!);
  for (let a = 0; a < 16; a++)
    for (let b = 0; b < 16; b++)
      for (let c = 0; c < 16; c++) words.push(SYLLABLES[a]! + SYLLABLES[b]! + SYLLABLES[c]!);
  // A fixed shuffle, so that frequency rank and spelling are unrelated.
  return new Prng(0x77f0).shuffle(words);
}

export const VOCABULARY = buildVocabulary();

// Zipf with exponent 1: the word of rank r (from 1) has weight 1/r.
const CUMULATIVE = (() => {
  const out = new Float64Array(VOCABULARY.length);
  let sum = 0;
  for (let r = 0; r < VOCABULARY.length; r++) {
    sum += 1 / (r + 1);
    out[r] = sum;
  }
  for (let r = 0; r < out.length; r++) out[r]! /= sum;
  return out;
})();

/** The word of frequency rank `rank` (0 = most frequent). */
export function wordOfRank(rank: number): string {
  return VOCABULARY[rank]!;
}

function zipfWord(random: Prng): string {
  const u = random.next();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}

/** The text of message number `index`: 4 to 23 words. */
export function contentOf(seed: number, index: number): string {
  const random = new Prng((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  const count = 4 + random.below(20);
  const words: string[] = [];
  for (let k = 0; k < count; k++) words.push(zipfWord(random));
  return words.join(' ');
}
