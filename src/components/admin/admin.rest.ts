// /v1 admin routes:
//   PATCH /v1/admin/users/:uid   set a user's scopes and partner access (scope `admin`)
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { UidParam, UserOutput } from '../users/users.schemas.js';
import { AdminUserUpdateInput } from './admin.schemas.js';
import { updateUserGrants } from './administer-users.js';

export function mountAdminRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'patch',
    path: '/v1/admin/users/:uid',
    tag: 'admin',
    summary: 'Change a user’s scopes and partner access',
    auth: 'required',
    params: UidParam,
    body: AdminUserUpdateInput,
    response: UserOutput,
    errors: { 403: 'Needs the admin scope.', 404: 'No such user.' },
    handler: ({ caller, params, body }) => updateUserGrants(ctx, caller, params.uid, body),
  });
}
