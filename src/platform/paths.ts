// Locates the project root (where package.json lives) so that schema/ and cypher/ are found the
// same way from src/ under tsx, from dist/ after a build, and from jest.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
