// Batches Message.thread lookups of one GraphQL request into one tree-ids query, as the caller
// sees the threads; a caller without messages.read (or none) sees only their public messages.
import DataLoader from 'dataloader';
import { hasScope } from '../../platform/auth/scopes.js';
import { loaderFor, type GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { findThreadIds, type ThreadIds } from './threads-repository.js';

export function threadLoader(context: GraphQLContext): DataLoader<string, ThreadIds | null> {
  return loaderFor(
    context,
    'threads',
    () =>
      new DataLoader<string, ThreadIds | null>(async (ids) => {
        const caller = context.caller;
        const viewerUid = caller && hasScope(caller, 'messages.read') ? caller.uid : null;
        const threads = await findThreadIds(context.app.db, viewerUid, ids);
        return ids.map((id) => threads.get(id) ?? null);
      }),
  );
}
