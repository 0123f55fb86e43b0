// /v1 recipients routes (to be written).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';

export function mountRecipientRoutes(_routes: RouteTable, _ctx: AppContext): void {}
