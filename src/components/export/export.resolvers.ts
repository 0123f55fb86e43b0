// GraphQL fields of export: Query.timelineExport (GET /v1/messages/timeline/export), calling the
// same use case as the REST route in export.rest.ts.
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { exportTimeline } from './export-timeline.js';
import { TimelineExportQuery } from './export.schemas.js';

type Args = Record<string, unknown>;

/** Absent and null arguments alike mean "not given", as a missing query parameter does. */
function givenArgs(raw: Args): Args {
  return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null && value !== undefined));
}

export const exportResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    timelineExport: (_: unknown, raw: Args, context: GraphQLContext) =>
      exportTimeline(context.app, callerOf(context), args(TimelineExportQuery, givenArgs(raw))),
  },
};
