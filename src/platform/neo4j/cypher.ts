// Cypher lives in cypher/<area>/<name>.cypher, one query per file; this loads a file once and keeps it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

const cache = new Map<string, string>();

/** The text of cypher/<name>.cypher, e.g. cypher('identity/find-session'). */
export function cypher(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(path.join(PROJECT_ROOT, 'cypher', `${name}.cypher`), 'utf8').trim();
    cache.set(name, text);
  }
  return text;
}
