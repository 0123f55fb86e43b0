// STUB (to be written): POST /v1/messages/{id}/ping, GET /v1/notifications.
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountEventRoutes(_routes: RouteTable, _ctx: AppContext): void {}
