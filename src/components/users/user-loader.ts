// Batches user lookups of one GraphQL request into one query (e.g. the authors of 100 messages), as
// the caller is shown them (whether it manages each is judged in that query).
import DataLoader from 'dataloader';
import { loaderFor, type GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { toUserOutput } from './user-record.js';
import { viewUsersByUid } from './users-repository.js';
import type { UserOutput } from './users.schemas.js';

export function userLoader(context: GraphQLContext): DataLoader<string, UserOutput | null> {
  return loaderFor(
    context,
    'users',
    () =>
      new DataLoader<string, UserOutput | null>(async (uids) => {
        const users = new Map(
          (await viewUsersByUid(context.app.db, context.caller?.uid ?? null, uids)).map(
            ({ user, viewer }) => [user.uid, toUserOutput(user, viewer)],
          ),
        );
        return uids.map((uid) => users.get(uid) ?? null);
      }),
  );
}
