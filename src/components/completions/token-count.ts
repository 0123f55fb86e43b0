// Skein's token rule (decision 033). Bots run any model, or none, so no model's tokenizer is right;
// this rule is stated, cheap and the same for every bot: a token is a run of letters, digits and
// underscores, or any other single visible character. It counts English text within about a third
// of OpenAI's tokenizers, which is what `usage` and `max_completion_tokens` need to be useful.
const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** The text up to the end of its `max`th token (all of it when it holds no more). */
export function cutToTokens(text: string, max: number): { text: string; cut: boolean } {
  let count = 0;
  for (const match of text.matchAll(TOKEN)) {
    count++;
    if (count === max) {
      const end = match.index + match[0].length;
      return { text: text.slice(0, end), cut: text.slice(end).trim() !== '' };
    }
  }
  return { text, cut: false };
}
