// STUB (to be written): GET /v1/managed/users/{uid}/deliveries.
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountWebhookRoutes(_routes: RouteTable, _ctx: AppContext): void {}
