// Cypher lives in cypher/<area>/<name>.cypher, one query per file; this loads a file once and keeps
// it. A query may use a shared fragment from cypher/fragments/ as {{name(var)}}: the fragment's
// `__m` becomes `var`. This is how the one visibility rule reaches every query. {{name(var, who)}}
// also replaces the fragment's $viewer_uid parameter with the variable `who`, for queries that
// judge visibility for many users at once (the notification outbox). A fragment may use another
// (reaction-shown judges the reactor with can-see): expansion repeats until none is left.
// A name of the form `outer(inner)` composes two queries into one statement: the text of `outer`
// with its `{{query}}` standing for the text of `inner` (messages/hydrate-page.cypher around a
// view's page query: the page and its messages in one round trip).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

const cache = new Map<string, string>();

function readCypherFile(relative: string): string {
  return readFileSync(path.join(PROJECT_ROOT, 'cypher', `${relative}.cypher`), 'utf8')
    .replace(/^\s*\/\/.*$/gm, '')
    .trim();
}

const FRAGMENT_CALL = /\{\{([a-z_]+)\((\w+)(?:,\s*(\w+))?\)\}\}/g;
/** Fragments nest this deep at most; deeper means two fragments use each other. */
const MAX_FRAGMENT_NESTING = 4;

function expandOnce(text: string): string {
  return text.replace(FRAGMENT_CALL, (_match, name: string, variable: string, viewer: string | undefined) => {
    const fragment = readCypherFile(`fragments/${name.replace(/_/g, '-')}`).replace(/__m\b/g, variable);
    return viewer ? fragment.replace(/\$viewer_uid\b/g, viewer) : fragment;
  });
}

function expandFragments(text: string): string {
  let expanded = text;
  for (let depth = 0; ; depth++) {
    const next = expandOnce(expanded);
    if (next === expanded) return expanded;
    if (depth === MAX_FRAGMENT_NESTING) throw new Error('Cypher fragments nest too deep (a cycle?)');
    expanded = next;
  }
}

const COMPOSED = /^([\w-]+\/[\w-]+)\(([\w-]+\/[\w-]+)\)$/;

/**
 * The text of cypher/<name>.cypher with fragments expanded, e.g. cypher('identity/find-sessions'),
 * or of a composed name, e.g. cypher('messages/hydrate-page(threads/timeline)') (see the header).
 */
export function cypher(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    const composed = COMPOSED.exec(name);
    text = composed
      ? // A function, so that `$` in the inner text is not read as a replacement pattern.
        cypher(composed[1]!).replace('{{query}}', () => cypher(composed[2]!))
      : expandFragments(readCypherFile(name));
    cache.set(name, text);
  }
  return text;
}
