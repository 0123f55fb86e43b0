// What every resolver receives. Resolvers hand plain values to use cases; they never pass this on.
import type { Caller, Credentials } from '../auth/caller.js';
import type { AppContext } from '../context.js';
import type { SessionCookies } from '../http/session-cookies.js';

export interface GraphQLContext {
  app: AppContext;
  caller: Caller | null;
  credentials: Credentials;
  cookies: SessionCookies;
  ip: string;
}
