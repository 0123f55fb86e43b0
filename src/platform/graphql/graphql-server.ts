// GraphQL at /graphql (Apollo Server over Express), built from schema/*.graphql and the
// components' resolvers. graphql-armor limits depth, cost, aliases, tokens and directives, and
// list-nesting.ts nested lists, so a hostile query is refused before it runs; what the text cannot
// show (how long the lists really are) the answer budget counts while it runs (answer-budget.ts). AppErrors keep their REST code and status in
// `extensions`; anything else is masked as an internal error and logged.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { unwrapResolverError } from '@apollo/server/errors';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { RequestHandler } from 'express';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { Authenticator } from '../http/route-table.js';
import { assertSameOriginForCookieWrite } from '../http/csrf.js';
import { authenticateRequest } from '../http/authenticate-request.js';
import { readCredentials } from '../http/credentials.js';
import { sessionCookies } from '../http/session-cookies.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { answerBudgetPlugin, newAnswerBudget, withAnswerBudget } from './answer-budget.js';
import { INTERNAL_ERROR, appErrorShape } from './graphql-errors.js';
import { maxListNesting } from './list-nesting.js';
import { withMessageReadScope } from './message-read-scope.js';
import { PROJECT_ROOT } from '../paths.js';
import type { GraphQLContext } from './graphql-context.js';
import { isCredentialFreeOperation } from './credential-free-operation.js';
import { subscriptionsOverWebSocketOnly } from './subscriptions-over-websocket.js';
import type { Caller } from '../auth/caller.js';

export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxCost: 5000,
  maxAliases: 15,
  maxTokens: 3000,
  maxDirectives: 20,
  /** Lists inside lists multiply the answer; see list-nesting.ts. */
  maxListNesting: 3,
};

/** The query limits, the same for HTTP and for subscriptions over graphql-ws. */
export function createArmor(): ApolloArmor {
  return new ApolloArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    // Tokens are limited by graphql-js's own parser (parseOptions below): armor's token plugin parses
    // outside Apollo's error handling and turned a too-long query into a 500.
    maxTokens: { enabled: false },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: true },
  });
}

export function buildSchema(resolvers: IResolvers<unknown, GraphQLContext>[]): GraphQLSchema {
  const dir = path.join(PROJECT_ROOT, 'schema');
  const typeDefs = readdirSync(dir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(path.join(dir, file), 'utf8'));
  // The scope guard wraps the budget, so that a refused field spends nothing.
  return withMessageReadScope(withAnswerBudget(makeExecutableSchema({ typeDefs, resolvers })));
}

export async function createGraphQLMiddleware(
  ctx: AppContext,
  schema: GraphQLSchema,
  authenticate: Authenticator,
): Promise<{ middleware: RequestHandler; stop: () => Promise<void> }> {
  const protection = createArmor().protect();
  const server = new ApolloServer<GraphQLContext>({
    schema,
    ...protection,
    validationRules: [...(protection.validationRules ?? []), maxListNesting(GRAPHQL_LIMITS.maxListNesting)],
    plugins: [
      ...(protection.plugins as ApolloServerPlugin<GraphQLContext>[]),
      ApolloServerPluginLandingPageDisabled(),
      answerBudgetPlugin(),
      subscriptionsOverWebSocketOnly<GraphQLContext>(),
    ],
    includeStacktraceInErrorResponses: false,
    // The schema is public (schema/*.graphql) and GraphiQL needs it for docs and completion, so
    // introspection stays on even with NODE_ENV=production, where Apollo would turn it off.
    introspection: true,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    formatError: (formatted, error) => {
      const original = unwrapResolverError(error);
      const shape = appErrorShape(original);
      if (shape) return { ...shape, ...(formatted.path ? { path: formatted.path } : {}) };
      if (original instanceof Error && formatted.extensions?.code === 'INTERNAL_SERVER_ERROR') {
        ctx.log.error({ err: original }, 'graphql resolver failed');
        return INTERNAL_ERROR;
      }
      return formatted;
    },
  });
  await server.start();
  const middleware = expressMiddleware(server, {
    context: async ({ req, res }): Promise<GraphQLContext> => {
      const cookies = sessionCookies(req, res, ctx.config);
      const credentials = readCredentials(req.headers, cookies.session());
      const contextFor = (caller: Caller | null): GraphQLContext => ({
        app: ctx,
        caller,
        credentials,
        cookies,
        ip: req.ip ?? 'unknown',
        loaders: new Map(),
        answer: newAnswerBudget(),
      });
      try {
        // Before authentication, as for REST: the logout mutation acts on the cookies too.
        assertSameOriginForCookieWrite(req, credentials, cookies, ctx.config);
        return contextFor(await authenticateRequest(authenticate, credentials, cookies));
      } catch (error) {
        // Bad credentials fail the whole request with the REST status, not as a 500...
        if (!(error instanceof AppError)) throw error;
        // ...unless the operation is only a logout, which (as over REST) ends what it can and succeeds.
        if (error.status === 401 && isCredentialFreeOperation(req.body, GRAPHQL_LIMITS.maxTokens)) {
          return contextFor(null);
        }
        throw new GraphQLError(error.message, {
          extensions: { code: error.code, status: error.status, http: { status: error.status } },
        });
      }
    },
  });
  return { middleware, stop: () => server.stop() };
}
