// /v1 search routes (to be written).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountSearchRoutes(_routes: RouteTable, _ctx: AppContext): void {}
