// When Neo4j cannot be reached (restarting, failing over, killed), a request is answered 503 with
// Retry-After rather than 500: the client's request was fine and may simply be repeated.
import { Neo4jError, error as neo4jErrors } from 'neo4j-driver';
import { AppError } from '../errors.js';

const UNAVAILABLE_CODES = new Set<string>([neo4jErrors.SERVICE_UNAVAILABLE, neo4jErrors.SESSION_EXPIRED]);

/** The 503 for a database outage, or null when the error is something else. */
export function databaseUnavailable(error: unknown): AppError | null {
  if (!(error instanceof Neo4jError) || !UNAVAILABLE_CODES.has(error.code)) return null;
  return new AppError('unavailable', 'The database is unavailable at the moment; try again shortly.', {
    headers: { 'Retry-After': '5' },
  });
}
