// `@user_tag` mentions in a message's content (contract "Messages"): the tags named, folded to
// lower case. A tag is 2–32 of [A-Za-z0-9_.-] starting with a letter or digit; an @ inside a word
// (an email address) is not a mention, and dots or hyphens that end a sentence are not part of it.
const MENTION = /(?<![A-Za-z0-9_.@-])@([A-Za-z0-9][A-Za-z0-9_.-]{1,31})/g;

/** At most this many distinct mentions per message are honoured. */
export const MAX_MENTIONS = 50;

export function mentionedTags(content: string): string[] {
  const tags = new Set<string>();
  for (const match of content.matchAll(MENTION)) {
    const tag = match[1]!.replace(/[.-]+$/, '').toLowerCase();
    if (tag.length >= 2) tags.add(tag);
    if (tags.size >= MAX_MENTIONS) break;
  }
  return [...tags];
}
