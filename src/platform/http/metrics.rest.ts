// GET /metrics: the Prometheus text format of platform/metrics.ts, for an operator's scraper. Not
// part of the /v1 API (not in the OpenAPI document): it answers 404 unless SKEIN_METRICS_TOKEN is
// set, and then only to `Authorization: Bearer <that token>` (401 otherwise), so it can stay on
// the public port. Also the middleware that counts and times every request by route template.
import type { Express, NextFunction, Request, Response } from 'express';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { matchesHash, sha256Hex } from '../auth/secrets.js';

/** Counts and times each answered request under its route template (bounded label values). */
export function requestMetrics(ctx: AppContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = ctx.metrics.httpDuration.startTimer();
    res.once('finish', () => {
      // A route's template (/v1/messages/:message_id), or the mount of a middleware (/graphql).
      const route = req.route
        ? `${req.baseUrl}${String((req.route as { path: unknown }).path)}`
        : req.baseUrl || 'unmatched';
      const labels = { method: req.method, route };
      stop(labels);
      ctx.metrics.httpRequests.inc({ ...labels, status: String(res.statusCode) });
      if (res.statusCode === 429) ctx.metrics.rateLimitRefusals.inc({ route });
    });
    next();
  };
}

export function mountMetricsEndpoint(app: Express, ctx: AppContext): void {
  const token = ctx.config.metricsToken;
  const expected = token ? sha256Hex(token) : null;
  app.get('/metrics', async (req, res, next) => {
    try {
      if (!expected) throw new AppError('not_found', 'Not found.');
      const presented = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
      if (!presented || !matchesHash(presented, expected)) {
        throw new AppError('not_authenticated', 'Send the metrics token as Authorization: Bearer <token>.');
      }
      res.set('Content-Type', ctx.metrics.registry.contentType);
      res.send(await ctx.metrics.registry.metrics());
    } catch (error) {
      next(error);
    }
  });
}
