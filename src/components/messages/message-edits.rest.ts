// /v1 message edit routes (to be written).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountMessageEditRoutes(_routes: RouteTable, _ctx: AppContext): void {}
