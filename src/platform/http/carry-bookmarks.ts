// Opens each REST and GraphQL request on the bookmarks its credential's writes left on any instance
// (platform/neo4j/causal-bookmarks.ts), so that a client reads its own writes whichever instance
// answers. Mounted only when the deployment needs it (a routing Neo4j URI and REDIS_URL): with a
// single Neo4j server every read already sees every commit, and the request path stays as it was.
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import type { CausalBookmarks } from '../neo4j/causal-bookmarks.js';
import { readCredentials } from './credentials.js';
import { sessionCookies } from './session-cookies.js';

export function carryBookmarks(causal: CausalBookmarks, config: Config): RequestHandler {
  return (req, res, next) => {
    const credentials = readCredentials(req.headers, sessionCookies(req, res, config).session());
    const finished = (done: () => void) => res.once('close', done);
    causal.run(credentials, finished, next).catch(next);
  };
}
