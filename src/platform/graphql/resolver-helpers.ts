// Small helpers shared by every area's resolvers.
import type { ZodType } from 'zod';
import { requireCaller, type Caller } from '../auth/caller.js';
import { consumeAccountLimit, type Limiter } from '../rate-limits.js';
import { parseInput } from '../validation.js';
import type { GraphQLContext } from './graphql-context.js';

/** Validates resolver arguments with the same zod schema the REST route uses. */
export function args<T>(schema: ZodType<T>, value: unknown): T {
  return parseInput(schema, value ?? {}, 'args');
}

export function callerOf(context: GraphQLContext): Caller {
  return requireCaller(context.caller);
}

/** The per-address limit of the auth endpoints, so GraphQL is no way around it. */
export async function limitAuth(context: GraphQLContext): Promise<void> {
  await context.app.limits.authByAddress.consume(context.ip);
}

/** A write's per-account limit, the same budget as its REST route's (accountLimit). */
export async function limitAccount(
  context: GraphQLContext,
  pick: (limits: GraphQLContext['app']['limits']) => Limiter,
): Promise<void> {
  await consumeAccountLimit(pick(context.app.limits), callerOf(context));
}

/** GraphQL hands absent input fields as null where the REST schemas expect them left out. */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, withoutNulls(v)]),
    ) as T;
  }
  return value;
}
