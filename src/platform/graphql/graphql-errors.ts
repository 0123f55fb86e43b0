// How errors read in GraphQL answers (over HTTP and over graphql-ws): an AppError keeps its REST
// sentence, code and status in extensions; anything unexpected is masked.
import { AppError } from '../errors.js';
import { databaseUnavailable } from '../neo4j/database-unavailable.js';

export interface GraphQLErrorShape {
  message: string;
  extensions: { code: string; status: number; detail?: unknown };
}

/** What the client is told about an unexpected failure: nothing of its internals. */
export const INTERNAL_ERROR: GraphQLErrorShape = {
  message: 'Internal error.',
  extensions: { code: 'internal_error', status: 500 },
};

/** How an AppError (or a database outage) reads in GraphQL: its sentence, REST code and status; null otherwise. */
export function appErrorShape(error: unknown): GraphQLErrorShape | null {
  const original = databaseUnavailable(error) ?? error;
  if (!(original instanceof AppError)) return null;
  const body = original.toBody();
  return {
    message: typeof body.detail === 'string' ? body.detail : original.message,
    extensions: { code: original.code, status: original.status, detail: body.detail },
  };
}
