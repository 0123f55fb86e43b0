// The stored user fields a profile edit writes (the user's own, or a manager's of a managed user):
// shown by the user reads only. No credential is judged by them (principal.cypher, sessions.ts) and
// no message view shows them, so writing them costs no other account anything (security review
// 2026-12-02, finding 1): credential-writes.ts and the view cache name the statements that write
// only these.
export const PROFILE_FIELDS: ReadonlySet<string> = new Set([
  'display_name',
  'bio',
  'is_bot',
  'bot_modalities',
  'bot_integrations',
  'bot_versions',
  'context_origin_id',
]);

/** Whether every field of `changes` is a profile field. */
export function onlyProfileFields(changes: Record<string, unknown>): boolean {
  return Object.keys(changes).every((field) => PROFILE_FIELDS.has(field));
}
