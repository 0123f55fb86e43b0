// What a known path answers to a method it does not have. Without it the request fell through to the
// 404 for unknown paths, or worse, to a sibling route with a parameter (DELETE /v1/messages/tags was
// read as DELETE /v1/messages/{message_id} and answered 422 about the id). RouteTable mounts this after
// each path's own routes, so it is reached only by the methods the path lacks: 405 with `Allow`, and
// for OPTIONS the same list as a 204 (Express's own answer also listed the parameterised sibling's methods).
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';

/** The Allow value for a path's methods: HEAD comes with GET (Express answers it from the GET route). */
export function allowHeader(methods: readonly string[]): string {
  const upper = methods.map((method) => method.toUpperCase());
  if (upper.includes('GET')) upper.push('HEAD');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return [...new Set(upper)].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join(', ');
}

export function methodNotAllowed(methods: readonly string[]): RequestHandler {
  const allow = allowHeader(methods);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      res.set('Allow', allow).status(204).end();
      return;
    }
    next(
      new AppError('method_not_allowed', `This path does not take ${req.method}; it takes ${allow}.`, {
        headers: { Allow: allow },
      }),
    );
  };
}
