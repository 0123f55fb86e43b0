// STUB (to be written): /v1/auth/contacts/* and /v1/auth/password/reset* routes.
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountContactRoutes(_routes: RouteTable, _ctx: AppContext): void {}
