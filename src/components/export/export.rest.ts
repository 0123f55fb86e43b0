// /v1 export routes (to be written).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountExportRoutes(_routes: RouteTable, _ctx: AppContext): void {}
