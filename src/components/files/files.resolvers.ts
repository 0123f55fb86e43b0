// GraphQL fields of files: Query.file (the metadata GET /v1/files/{file_id} would serve), calling
// the same use case as the REST route in files.rest.ts. Uploads stay REST-only (multipart).
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { FileIdParam } from './files.schemas.js';
import { readFileMetadata } from './read-file.js';

export const filesResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    file: (_: unknown, raw: unknown, context: GraphQLContext) =>
      readFileMetadata(context.app, callerOf(context), args(FileIdParam, raw).file_id),
  },
};
