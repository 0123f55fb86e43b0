// Batches user lookups of one GraphQL request into one query (e.g. the authors of 100 messages).
import DataLoader from 'dataloader';
import { loaderFor, type GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { toUserOutput } from './user-record.js';
import { findUsersByUid } from './users-repository.js';
import type { UserOutput } from './users.schemas.js';

export function userLoader(context: GraphQLContext): DataLoader<string, UserOutput | null> {
  return loaderFor(
    context,
    'users',
    () =>
      new DataLoader<string, UserOutput | null>(async (uids) => {
        const users = new Map(
          (await findUsersByUid(context.app.db, uids)).map((u) => [u.uid, toUserOutput(u)]),
        );
        return uids.map((uid) => users.get(uid) ?? null);
      }),
  );
}
