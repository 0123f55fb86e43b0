// /v1 channels routes (to be written).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountChannelRoutes(_routes: RouteTable, _ctx: AppContext): void {}
