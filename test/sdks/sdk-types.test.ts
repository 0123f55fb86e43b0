// sdks/typescript/src/generated/openapi.ts must be what `npm run sdk:types` makes from the current
// OpenAPI document: the types are generated in memory and compared with the committed file, so a
// route or schema change without regenerated SDK types fails the run.
import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { GENERATED_TYPES_PATH, renderTypes } from '../../sdks/typescript/scripts/generate-types.js';

describe('sdks/typescript/src/generated/openapi.ts', () => {
  it('when the types are generated from the current OpenAPI document, then they equal the committed file', async () => {
    const committed = await readFile(GENERATED_TYPES_PATH, 'utf8');
    const fresh = await renderTypes();
    if (fresh !== committed) {
      const at = [...fresh].findIndex((char, i) => char !== committed[i]);
      const line = fresh.slice(0, at).split('\n').length;
      throw new Error(
        `The SDK's generated types are stale (first difference at line ${line}); run \`npm run sdk:types\`.`,
      );
    }
    expect(fresh).toContain('export interface paths');
  });
});
