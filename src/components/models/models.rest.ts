// /v1 models routes (to be written).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountModelRoutes(_routes: RouteTable, _ctx: AppContext): void {}
