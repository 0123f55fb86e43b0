// Operational routes:
//   GET /healthz            the process is up
//   GET /readyz             ready only while Neo4j answers
//   GET /v1/openapi.json    this API's OpenAPI 3.1 document
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { generateOpenApiDocument, z } from '../openapi.js';
import type { RouteTable } from './route-table.js';

export function mountHealthRoutes(routes: RouteTable, ctx: AppContext, registry: OpenAPIRegistry): void {
  routes.add({
    method: 'get',
    path: '/healthz',
    tag: 'operations',
    summary: 'Liveness',
    auth: 'none',
    response: z.object({ status: z.literal('ok') }),
    handler: () => Promise.resolve({ status: 'ok' as const }),
  });

  routes.add({
    method: 'get',
    path: '/readyz',
    tag: 'operations',
    summary: 'Readiness: Neo4j answers',
    auth: 'none',
    response: z.object({ status: z.literal('ready') }),
    errors: { 503: 'Neo4j does not answer.' },
    handler: async () => {
      try {
        await withTimeout(ctx.db.verify(), 3000);
      } catch {
        throw new AppError('unavailable', 'Neo4j is not answering.');
      }
      return { status: 'ready' as const };
    },
  });

  let document: unknown;
  routes.add({
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'operations',
    summary: 'This OpenAPI document',
    auth: 'none',
    response: z.record(z.string(), z.unknown()),
    handler: () => {
      // Generated on first request, once every route has registered itself.
      document ??= generateOpenApiDocument(registry, ctx.config.publicUrl);
      return Promise.resolve(document as Record<string, unknown>);
    },
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref()),
  ]);
}
