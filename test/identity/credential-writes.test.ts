// The table of writes that change credentials (src/components/identity/credential-writes.ts) must
// name every write statement of the folders it covers: an unclassified one counts as a change of
// every credential (safe, but the cost the 2026-12-02 review measured), and one classified as
// changing nobody must really change no credential. The folders' reads are told apart by name; a
// statement named as a read must write nothing.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CLASSIFIED_WRITES, credentialOwners } from '../../src/components/identity/credential-writes.js';

const CYPHER = path.resolve('cypher');
const AREAS = ['identity', 'users', 'contacts'];
const WRITES = /\b(SET|CREATE|MERGE|DELETE|REMOVE)\b/;

function statements(): { name: string; text: string }[] {
  return AREAS.flatMap((area) =>
    readdirSync(path.join(CYPHER, area))
      .filter((file) => file.endsWith('.cypher'))
      .map((file) => ({
        name: `${area}/${file.replace(/\.cypher$/, '')}`,
        // Comments may say "set" or "delete"; only the statement counts.
        text: readFileSync(path.join(CYPHER, area, file), 'utf8').replace(/\/\/.*$/gm, ''),
      })),
  );
}

describe('the classification of credential writes', () => {
  it('when a statement of identity/, users/ or contacts/ writes, then the table names it', () => {
    const unclassified = statements()
      .filter(({ text }) => WRITES.test(text))
      .map(({ name }) => name)
      .filter((name) => !CLASSIFIED_WRITES.includes(name));
    expect(unclassified).toEqual([]);
  });

  it('when a statement of those folders writes nothing, then it changes nobody’s credential', () => {
    for (const { name, text } of statements()) {
      if (WRITES.test(text)) continue;
      expect([name, credentialOwners([{ name, params: { uid: 'u1' } }])]).toEqual([name, []]);
    }
  });

  it('when a profile edit writes display fields only, then it names nobody; with a scope, the user', () => {
    const run = (changes: Record<string, unknown>) =>
      credentialOwners([{ name: 'users/set-user-fields', params: { uid: 'u1', changes } }]);
    expect(run({ display_name: 'x', bio: 'y', bot_versions: ['1'], context_origin_id: null })).toEqual([]);
    expect(run({ display_name: 'x', scopes: ['messages.read'] })).toEqual(['u1']);
    expect(run({ has_api_access: false })).toEqual(['u1']);
    expect(run({ some_new_field: 1 })).toEqual(['u1']);
  });

  it('when an unclassified write of those folders or a schema change commits, then it concerns everyone', () => {
    expect(credentialOwners([{ name: 'identity/some-new-write', params: {} }])).toBe('everyone');
    expect(credentialOwners([{ name: 'schema/raw-text', params: {} }])).toBe('everyone');
    expect(credentialOwners([{ name: 'messages/write-post', params: {} }])).toEqual([]);
  });
});
