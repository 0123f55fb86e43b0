// GraphQL's context authenticates before any resolver runs, and bad credentials fail the whole
// request with 401. REST logout takes no caller (auth 'none'): logging out twice, or with an expired
// or revoked token, still succeeds. An operation made only of such fields must then go on without a
// caller, or GraphQL logout would not be idempotent; this decides which operations those are.
import { Kind, OperationTypeNode, getOperationAST, parse, type DocumentNode } from 'graphql';

/** Root mutation fields whose resolvers need no caller (the REST twin is auth 'none'). */
const CREDENTIAL_FREE_MUTATIONS = new Set(['logout', '__typename']);

/** True when the request body's operation is a mutation selecting only credential-free fields. */
export function isCredentialFreeOperation(body: unknown, maxTokens: number): boolean {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return false;
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens });
  } catch {
    // Apollo answers the parse error itself; the credentials are refused first, as before.
    return false;
  }
  const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
  return (
    operation?.operation === OperationTypeNode.MUTATION &&
    operation.selectionSet.selections.every(
      (selection) => selection.kind === Kind.FIELD && CREDENTIAL_FREE_MUTATIONS.has(selection.name.value),
    )
  );
}
