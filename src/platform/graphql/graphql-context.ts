// What every resolver receives. Resolvers hand plain values to use cases; they never pass this on.
import type { Caller, Credentials } from '../auth/caller.js';
import type { AppContext } from '../context.js';
import type { AnswerBudget } from './answer-budget.js';
import type { SessionCookies } from '../http/session-cookies.js';

export interface GraphQLContext {
  app: AppContext;
  caller: Caller | null;
  credentials: Credentials;
  cookies: SessionCookies;
  ip: string;
  /** Per-request DataLoaders, made on first use by loaderFor(). */
  loaders: Map<string, unknown>;
  /** Objects answered in lists so far (answer-budget.ts). */
  answer: AnswerBudget;
}

/** The request's loader named `name`, made by `make` the first time it is asked for. */
export function loaderFor<T>(context: GraphQLContext, name: string, make: () => T): T {
  let loader = context.loaders.get(name) as T | undefined;
  if (loader === undefined) {
    loader = make();
    context.loaders.set(name, loader);
  }
  return loader;
}
