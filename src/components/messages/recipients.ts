// Recipient references as clients write them: "tag", "@tag", "uid:<uid>", or {user_tag | uid, public, notify}.
import type { RecipientInput } from './messages.schemas.js';

export interface RecipientRef {
  /** 'tag:<folded tag>' or 'uid:<uid>', the key resolvePostRefs answers under. */
  key: string;
  kind: 'tag' | 'uid';
  value: string;
  public: boolean;
  notify: boolean;
}

export function parseRecipient(input: RecipientInput): RecipientRef {
  if (typeof input === 'string') {
    const text = input.trim();
    if (text.startsWith('uid:')) return ref('uid', text.slice(4), true, true);
    return ref('tag', text.replace(/^@/, '').toLowerCase(), true, true);
  }
  if (input.uid !== undefined) return ref('uid', input.uid.replace(/^uid:/, ''), input.public, input.notify);
  return ref('tag', (input.user_tag ?? '').replace(/^@/, '').toLowerCase(), input.public, input.notify);
}

function ref(kind: 'tag' | 'uid', value: string, isPublic: boolean, notify: boolean): RecipientRef {
  return { key: `${kind}:${value}`, kind, value, public: isPublic, notify };
}
