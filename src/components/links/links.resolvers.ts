// GraphQL fields of stitches, each calling the same use case as its REST route (links.rest.ts):
//   Query.incomingLinks / Query.outgoingLinks   GET /v1/links/messages/{message_id}/incoming|outgoing
//   Mutation.stitch / Mutation.unstitch         POST / DELETE /v1/links/messages/{message_id_from}/{message_id_to}
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf } from '../../platform/graphql/resolver-helpers.js';
import { MessageIdParam } from '../messages/messages.schemas.js';
import type { LinkDirection } from './links-repository.js';
import { LinkListQuery, LinkParams } from './links.schemas.js';
import { listLinkedMessages } from './list-linked-messages.js';
import { stitchMessages, unstitchMessages } from './manage-stitches.js';

type Args = Record<string, unknown>;

function linkParams(raw: Args): LinkParams {
  return args(LinkParams, { message_id_from: raw.message_id_from, message_id_to: raw.message_id_to });
}

function listLinks(direction: LinkDirection) {
  return (_: unknown, raw: Args, context: GraphQLContext) => {
    const { message_id } = args(MessageIdParam, { message_id: raw.message_id });
    // The REST query schema reads strings; GraphQL hands typed values, absent ones as null.
    const query = args(LinkListQuery, {
      skip: raw.skip ?? undefined,
      limit: raw.limit ?? undefined,
      show_all_links: typeof raw.show_all_links === 'boolean' ? String(raw.show_all_links) : undefined,
    });
    return listLinkedMessages(context.app, callerOf(context), message_id, direction, query);
  };
}

export const linksResolvers: IResolvers<unknown, GraphQLContext> = {
  Query: {
    incomingLinks: listLinks('incoming'),
    outgoingLinks: listLinks('outgoing'),
  },
  Mutation: {
    stitch: (_: unknown, raw: Args, context: GraphQLContext) => {
      const params = linkParams(raw);
      return stitchMessages(context.app, callerOf(context), params.message_id_from, params.message_id_to);
    },
    unstitch: (_: unknown, raw: Args, context: GraphQLContext) => {
      const params = linkParams(raw);
      return unstitchMessages(context.app, callerOf(context), params.message_id_from, params.message_id_to);
    },
  },
};
