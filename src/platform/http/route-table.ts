// Declares a REST route once: its zod schemas validate the request and describe it in OpenAPI,
// its auth mode decides whether a caller is required, and its handler only maps to a use case.
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { NextFunction, Request, Response, Router } from 'express';
import type { ZodObject, ZodRawShape, ZodType } from 'zod';
import { requireCaller, type Caller, type Credentials } from '../auth/caller.js';
import type { AppContext } from '../context.js';
import { ErrorBody, z } from '../openapi.js';
import { errorExamples } from '../openapi-error-examples.js';
import { requestExample } from '../openapi-examples.js';
import { consumeAccountLimit, type Limiter, type LimitState } from '../rate-limits.js';
import { parseInput } from '../validation.js';
import { authenticateRequest, type Authenticator } from './authenticate-request.js';
import { assertSameOriginForCookieWrite } from './csrf.js';
import { readCredentials } from './credentials.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { sessionCookies, type SessionCookies } from './session-cookies.js';
import { viewKey } from './view-cache.js';

export type { Authenticator };

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteRequest<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  caller: Caller | null;
  credentials: Credentials;
  cookies: SessionCookies;
  ip: string;
  header: (name: string) => string | undefined;
}

export interface RouteRequestAuthed<B, Q, P> extends RouteRequest<B, Q, P> {
  caller: Caller;
}

interface RouteBase<B extends ZodType, Q extends ZodType, P extends ZodType, R extends ZodType, T> {
  method: Method;
  /** Express-style path, e.g. /v1/auth/keys/:key_id */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** OpenAPI operationId; derived from the method and path when absent (see operationIdOf). */
  operationId?: string;
  body?: B;
  /**
   * The body as OpenAPI shows it, when `body` validates less on purpose (POST /v1/messages checks
   * each item on its own so that one bad item fails alone, but clients need the item's type).
   */
  documentedBody?: ZodType;
  /** Request headers the handler reads (through `header()`); documented only, never validated here. */
  headers?: ZodObject<ZodRawShape>;
  query?: Q;
  params?: P;
  response: R;
  status?: number;
  /** Documented error statuses and when they happen. */
  errors?: Partial<Record<400 | 401 | 403 | 404 | 409 | 413 | 422 | 426 | 429 | 500 | 503 | 504, string>>;
  /** Limiter keyed by client address, applied before anything else. */
  rateLimit?: (limits: AppContext['limits']) => Limiter;
  /** Limiter keyed by the signed-in account, applied right after authentication (before the body). */
  accountLimit?: (limits: AppContext['limits']) => Limiter;
  /**
   * Points the account limit counts for this request, from its body as sent (default 1): a post of
   * several messages counts each.
   */
  accountLimitCost?: (body: unknown) => number;
  missingIsBadRequest?: boolean;
  /** Any invalid body is 400 rather than 422 (where the spec says "400 invalid body"). */
  invalidBodyIsBadRequest?: boolean;
  /**
   * A body Express does not parse (a multipart upload): read after authentication (the caller is
   * passed so scopes can be checked before a large body is read) and validated against `body`.
   * Whatever the reader stores, the route's handler cleans up.
   */
  readBody?: (req: Request, res: Response, caller: Caller | null) => Promise<unknown>;
  /** Media type of `body` in OpenAPI (default application/json), e.g. multipart/form-data. */
  bodyType?: string;
  /**
   * Writes the success response itself (a file stream) from the handler's result, instead of
   * JSON; the handler (and its use case) still never sees `res`. The result's type is the one
   * `send` takes (a use case's handle on an answer still under way); without `send` it is `R`'s.
   */
  send?: (res: Response, result: T) => Promise<void>;
  /** Media type of the success response in OpenAPI (default application/json). */
  responseType?: string;
  /**
   * A signed-in caller's answer may be kept in the view cache (view-cache.ts) and given again for
   * the same caller and URL until a write may have changed it. Only for GET routes whose answer is
   * a function of the caller, the URL and the graph (a message view), and whose handler writes
   * nothing. Anonymous answers are not kept.
   */
  cacheable?: boolean;
}

interface AuthedRoute<
  B extends ZodType,
  Q extends ZodType,
  P extends ZodType,
  R extends ZodType,
  T = z.infer<R>,
> extends RouteBase<B, Q, P, R, T> {
  auth: 'required';
  handler(request: RouteRequestAuthed<z.infer<B>, z.infer<Q>, z.infer<P>>): Promise<NoInfer<T>>;
}

interface OpenRoute<
  B extends ZodType,
  Q extends ZodType,
  P extends ZodType,
  R extends ZodType,
  T = z.infer<R>,
> extends RouteBase<B, Q, P, R, T> {
  /** `optional`: a caller when credentials are sent (invalid ones are 401); `none`: never looked up. */
  auth: 'optional' | 'none';
  handler(request: RouteRequest<z.infer<B>, z.infer<Q>, z.infer<P>>): Promise<NoInfer<T>>;
}

export type RouteSpec<
  B extends ZodType,
  Q extends ZodType,
  P extends ZodType,
  R extends ZodType,
  T = z.infer<R>,
> = AuthedRoute<B, Q, P, R, T> | OpenRoute<B, Q, P, R, T>;

export class RouteTable {
  private readonly pending: { path: string; method: Method; register: () => void }[] = [];

  constructor(
    private readonly router: Router,
    private readonly registry: OpenAPIRegistry,
    private readonly ctx: AppContext,
    private readonly authenticate: Authenticator,
  ) {}

  add<B extends ZodType, Q extends ZodType, P extends ZodType, R extends ZodType, T = z.infer<R>>(
    spec: RouteSpec<B, Q, P, R, T>,
  ): void {
    if (spec.cacheable && spec.method !== 'get')
      throw new Error(`${spec.method} ${spec.path}: only GET routes may be cacheable`);
    this.document(spec);
    this.pending.push({
      path: spec.path,
      method: spec.method,
      register: () =>
        this.router[spec.method](spec.path, (req: Request, res: Response, next: NextFunction) => {
          this.handle(spec, req, res).catch(next);
        }),
    });
  }

  /**
   * Registers every added route with Express, literal segments before parameters, so that
   * /v1/messages/inbox is never taken for /v1/messages/:message_id whatever the mounting order.
   * Each path's routes are followed by its 405 answer for the methods it lacks, so that
   * DELETE /v1/messages/tags is not taken for DELETE /v1/messages/:message_id either.
   */
  finish(): void {
    // One character per segment, 0 literal and 1 parameter: comparing these strings is a total
    // order that puts a literal before a parameter at the first segment where two paths differ.
    // Paths of equal rank cannot match the same URL, so ordering them by text (to keep each path's
    // routes together) changes nothing else.
    const rank = (path: string) =>
      path
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '1' : '0'))
        .join('') + ` ${path}`;
    const sorted = [...this.pending].sort((a, b) =>
      rank(a.path) < rank(b.path) ? -1 : rank(a.path) > rank(b.path) ? 1 : 0,
    );
    sorted.forEach((route, index) => {
      route.register();
      if (sorted[index + 1]?.path === route.path) return;
      const methods = sorted.filter((other) => other.path === route.path).map((other) => other.method);
      this.router.all(route.path, methodNotAllowed(methods));
    });
    this.pending.length = 0;
  }

  private async handle<B extends ZodType, Q extends ZodType, P extends ZodType, R extends ZodType, T>(
    spec: RouteSpec<B, Q, P, R, T>,
    req: Request,
    res: Response,
  ): Promise<void> {
    if (spec.rateLimit)
      setLimitHeaders(res, await spec.rateLimit(this.ctx.limits).consume(req.ip ?? 'unknown'));
    const cookies = sessionCookies(req, res, this.ctx.config);
    const credentials = readCredentials(req.headers, cookies.session());
    // Before authentication and for every auth mode: logout (auth 'none') acts on the cookies too.
    assertSameOriginForCookieWrite(req, credentials, cookies, this.ctx.config);
    const caller =
      spec.auth === 'none' ? null : await authenticateRequest(this.authenticate, credentials, cookies);
    if (spec.accountLimit && caller) {
      // The later limit's headers win: an account's write budget is the one a client paces by.
      const points = spec.accountLimitCost?.(req.body) ?? 1;
      setLimitHeaders(res, await consumeAccountLimit(spec.accountLimit(this.ctx.limits), caller, points));
    }
    // A kept answer was validated when it was made from this same URL, so it is sent as it is.
    const views = this.ctx.views;
    const cached =
      spec.cacheable && caller ? { key: viewKey(caller, req.originalUrl), viewer: caller.uid } : null;
    if (cached) {
      const kept = await views.lookup(cached.key);
      if (kept !== null) {
        res.status(200).type('json').send(kept);
        return;
      }
    }
    const mark = views.mark();

    const options = {
      missingIsBadRequest: spec.missingIsBadRequest ?? false,
      invalidIsBadRequest: spec.invalidBodyIsBadRequest ?? false,
    };
    const rawBody: unknown = spec.readBody ? await spec.readBody(req, res, caller) : req.body;
    const request: RouteRequest<z.infer<B>, z.infer<Q>, z.infer<P>> = {
      // No body at all reads as {}; a JSON null is a body, and the schema refuses it.
      body: (spec.body
        ? parseInput(spec.body, rawBody === undefined ? {} : rawBody, 'body', options)
        : undefined) as z.infer<B>,
      query: (spec.query ? parseInput(spec.query, req.query, 'query') : undefined) as z.infer<Q>,
      params: (spec.params ? parseInput(spec.params, req.params, 'path') : undefined) as z.infer<P>,
      caller,
      credentials,
      cookies,
      ip: req.ip ?? 'unknown',
      header: (name) => req.get(name),
    };
    const result =
      spec.auth === 'required'
        ? await spec.handler({ ...request, caller: requireCaller(caller) })
        : await spec.handler(request);
    res.status(spec.status ?? 200);
    if (spec.send) await spec.send(res, result);
    else if (cached) {
      // What res.json would send (no JSON settings are changed in app.ts), kept on the way.
      const body = JSON.stringify(result);
      views.store(cached.key, cached.viewer, mark, body);
      res.type('json').send(body);
    } else res.json(result);
  }

  private document<B extends ZodType, Q extends ZodType, P extends ZodType, R extends ZodType, T>(
    spec: RouteSpec<B, Q, P, R, T>,
  ): void {
    const path = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const responses: RouteConfig['responses'] = {
      [spec.status ?? 200]: {
        description: 'Success',
        content: { [spec.responseType ?? 'application/json']: { schema: spec.response } },
      },
    };
    const jsonBody = spec.body !== undefined && spec.readBody === undefined;
    const errors: Record<number, string | undefined> = { ...spec.errors };
    if (jsonBody) {
      // What express.json and the error handler answer before a route sees the body.
      errors[400] ??= '`invalid_json`: the body is not valid JSON.';
      errors[413] ??= '`payload_too_large`: the JSON body is over 1 MB.';
      errors[415] ??= '`unsupported_media_type`: a charset other than UTF-8, or a compressed body.';
    }
    if (spec.auth === 'required') errors[401] ??= 'Not authenticated, or the session or key is invalid.';
    if (spec.auth === 'optional') errors[401] ??= 'Credentials were sent but are invalid or expired.';
    if (spec.body || spec.query || spec.params) errors[422] ??= 'Validation error.';
    if (spec.rateLimit || spec.accountLimit) errors[429] ??= 'Rate limit hit; see Retry-After.';
    for (const [status, description] of Object.entries(errors)) {
      if (!description) continue;
      const examples = errorExamples(Number(status), description);
      responses[status] = {
        description,
        content: { 'application/json': { schema: ErrorBody, examples } },
      };
    }
    const request: RouteConfig['request'] = {
      headers: CorrelationHeader.extend(spec.headers?.shape ?? {}),
    };
    if (spec.body) {
      const example = requestExample(spec.method, path);
      request.body = {
        // A missing body is read as {}: the body is required exactly when {} is refused.
        required: jsonBody ? !spec.body.safeParse({}).success : true,
        content: {
          [spec.bodyType ?? 'application/json']: {
            schema: spec.documentedBody ?? spec.body,
            ...(example === undefined ? {} : { example }),
          },
        },
      };
    }
    if (spec.query) request.query = spec.query as unknown as NonNullable<RouteConfig['request']>['query'];
    if (spec.params) request.params = spec.params as unknown as NonNullable<RouteConfig['request']>['params'];
    const credentials: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }, { cookie: [] }];
    this.registry.registerPath({
      method: spec.method,
      path,
      operationId: spec.operationId ?? operationIdOf(spec.method, path),
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      // `{}` is OpenAPI's "no credentials" alternative: optional-auth operations also serve anyone.
      security: spec.auth === 'none' ? [] : spec.auth === 'optional' ? [...credentials, {}] : credentials,
      request,
      responses,
    });
  }
}

/**
 * Every route echoes a well-formed X-Correlation-Id (src/app.ts) so callers can match logs. Any value
 * is accepted: a proxy may set the header, and it must never make a request fail, so the schema
 * allows every string and the description states which ones come back.
 */
const CorrelationHeader = z.object({
  'X-Correlation-Id': z
    .string()
    .optional()
    .openapi({
      description:
        'Optional, never refused: any value is accepted and the request is served as without it. A value ' +
        'of 1–128 characters, each one of A-Z a-z 0-9 _ . : -, is echoed unchanged in the X-Correlation-Id ' +
        'header of the answer (success or error). Any other value (empty, longer, or with other ' +
        'characters) is ignored: the answer then has no X-Correlation-Id header. It is never replaced ' +
        'by a generated one.',
      example: 'req-7f3a9c',
    }),
});

/**
 * A stable operationId from the method and path, for generated clients: GET /v1/messages/{message_id}/tree-ids
 * → getMessagesTreeIdsByMessageId. Literal segments in order, then the parameters.
 */
export function operationIdOf(method: Method, path: string): string {
  const words = (segment: string) =>
    segment
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word[0]!.toUpperCase() + word.slice(1));
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== 'v1');
  const literal = segments.filter((segment) => !segment.startsWith('{')).flatMap(words);
  const params = segments.filter((segment) => segment.startsWith('{')).flatMap(words);
  return method + literal.join('') + (params.length > 0 ? 'By' + params.join('And') : '');
}

function setLimitHeaders(res: Response, state: LimitState): void {
  res.set({
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  });
}
