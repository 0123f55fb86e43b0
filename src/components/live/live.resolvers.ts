// GraphQL fields of live delivery; each calls the same use case as its REST route (live.rest.ts):
//   Query    stream(stream_id), streams(parent_id, channel_id)
//   Subscription live(typing, streams): the frames of /v1/ws/v1?live=true (live-subscription.ts)
//   Mutation setTyping(message_id, channel_id, recipients, op, status),
//            openStream(message), appendStream(stream_id, seq, text),
//            finishStream(stream_id, last_seq, incomplete), stopStream(stream_id)
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLContext } from '../../platform/graphql/graphql-context.js';
import { args, callerOf, limitAccount, withoutNulls } from '../../platform/graphql/resolver-helpers.js';
import {
  ChunkInput,
  FinishInput,
  StreamIdParam,
  StreamInput,
  StreamsQuery,
  TypingInput,
} from './live.schemas.js';
import { openStream } from './open-stream.js';
import { idempotencyKeyOf } from '../messages/messages.rest.js';
import { listStreams, readStream } from './read-streams.js';
import { setTyping } from './set-typing.js';
import { subscribeLive } from './live-subscription.js';
import { stopStream } from './stop-stream.js';
import { appendChunk, finishStream } from './write-stream.js';

type Args = Record<string, unknown>;

const streamId = (raw: Args) => args(StreamIdParam, { stream_id: raw.stream_id }).stream_id;

export const liveResolvers: IResolvers<unknown, GraphQLContext> = {
  Subscription: {
    live: {
      subscribe: (_: unknown, raw: Args, context: GraphQLContext) =>
        subscribeLive(context.app, callerOf(context), context.ip, {
          typing: raw.typing !== false,
          streams: raw.streams !== false,
        }),
      resolve: (frame: object) => frame,
    },
  },
  Query: {
    stream: (_: unknown, raw: Args, context: GraphQLContext) =>
      readStream(context.app, callerOf(context), streamId(raw)),
    streams: async (_: unknown, raw: Args, context: GraphQLContext) =>
      (await listStreams(context.app, callerOf(context), args(StreamsQuery, withoutNulls(raw)))).streams,
  },
  Mutation: {
    setTyping: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const caller = callerOf(context);
      await limitAccount(context, (limits) => limits.typingByAccount);
      return setTyping(context.app, caller, args(TypingInput, withoutNulls(raw)), 'args');
    },
    openStream: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const caller = callerOf(context);
      await limitAccount(context, (limits) => limits.postsByAccount);
      const key = raw.idempotency_key as string | null | undefined;
      return openStream(
        context.app,
        caller,
        args(StreamInput, withoutNulls(raw.message)),
        idempotencyKeyOf(() => key ?? undefined),
      );
    },
    appendStream: async (_: unknown, raw: Args, context: GraphQLContext) => {
      const caller = callerOf(context);
      await limitAccount(context, (limits) => limits.streamAppendsByAccount);
      return appendChunk(
        context.app,
        caller,
        streamId(raw),
        args(ChunkInput, { seq: raw.seq, text: raw.text }),
      );
    },
    finishStream: (_: unknown, raw: Args, context: GraphQLContext) =>
      finishStream(
        context.app,
        callerOf(context),
        streamId(raw),
        args(FinishInput, withoutNulls({ last_seq: raw.last_seq, incomplete: raw.incomplete })),
      ),
    stopStream: (_: unknown, raw: Args, context: GraphQLContext) =>
      stopStream(context.app, callerOf(context), streamId(raw)),
  },
};
