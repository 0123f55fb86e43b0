// /v1 user routes:
//   GET  /v1/users/me                 the caller's profile, scopes and contacts
//   POST /v1/users/profile            edit display name, bio, bot metadata
//   GET  /v1/users/by-tag/:user_tag   a user by tag (case-insensitive, optional leading @)
//   GET  /v1/users/search?q=&limit=   users by tag prefix, then by display-name word prefixes
//   POST /v1/managed/users            create a managed user or bot under the caller
//   GET  /v1/managed/users            the caller's managed users
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { createManagedUser, listManagedUsers } from './manage-users.js';
import { getMe, getUserByTag } from './read-users.js';
import { NAME_CANDIDATES, searchUsers } from './search-users.js';
import { updateProfile } from './update-profile.js';
import * as schemas from './users.schemas.js';

const TAG = 'users';

export function mountUserRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/users/me',
    tag: TAG,
    summary: 'Your profile',
    auth: 'required',
    response: schemas.MeOutput,
    handler: ({ caller }) => getMe(ctx, caller),
  });

  routes.add({
    method: 'post',
    path: '/v1/users/profile',
    tag: TAG,
    summary: 'Edit your profile',
    auth: 'required',
    body: schemas.ProfileUpdateInput,
    response: schemas.MeOutput,
    handler: ({ caller, body }) => updateProfile(ctx, caller, body),
  });

  routes.add({
    method: 'get',
    path: '/v1/users/by-tag/:user_tag',
    tag: TAG,
    summary: 'Find a user by tag',
    description: 'Case-insensitive; a leading @ is allowed.',
    auth: 'required',
    params: schemas.UserTagParam,
    response: schemas.UserOutput,
    errors: { 404: 'No such user.' },
    handler: ({ params }) => getUserByTag(ctx, params.user_tag),
  });

  routes.add({
    method: 'get',
    path: '/v1/users/search',
    tag: TAG,
    summary: 'Search users',
    description:
      'Someone to write to: users whose tag starts with `q`, or whose display name has, for each word of ' +
      '`q`, a word starting with it (`ada lo` finds "Ada Lovelace"), both compared case-insensitively; ' +
      'accents count (`jose` does not find "José"). A leading @ and surrounding whitespace are dropped. ' +
      'Ordered: the user whose tag is `q`, then the other tag matches by tag, then display-name matches ' +
      `by display name, then tag (of at most ${NAME_CANDIDATES} display-name matches, picked by the ` +
      'full-text index when more match: type more to narrow). Answers the public `UserOutput` that ' +
      'GET /v1/users/by-tag answers, never contacts or scopes. Banned accounts (whose grant no longer ' +
      'holds `messages.read`, and bots none of whose managers holds it) are left out. Any signed-in ' +
      'caller, as for GET /v1/users/by-tag.',
    auth: 'required',
    query: schemas.UserSearchQuery,
    response: schemas.UserList,
    errors: {
      422:
        `\`q\` blank or over ${schemas.USER_SEARCH_MAX_CHARS} characters once trimmed, or \`limit\` ` +
        `outside 1–${schemas.USER_SEARCH_MAX_LIMIT}.`,
    },
    handler: ({ query }) => searchUsers(ctx, query),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/users',
    tag: TAG,
    summary: 'Create a managed user or bot',
    description:
      'The caller becomes its manager. Needs `messages.write` (a managed user can write at once). Managed ' +
      'users have no password; they inherit the manager’s `has_api_access` at creation.',
    auth: 'required',
    status: 201,
    body: schemas.ManagedUserCreateInput,
    response: schemas.UserOutput,
    errors: {
      403: 'Managed users cannot manage users, or messages.write is missing.',
      409: 'User tag taken.',
    },
    handler: ({ caller, body }) => createManagedUser(ctx, caller, body),
  });

  routes.add({
    method: 'get',
    path: '/v1/managed/users',
    tag: TAG,
    summary: 'Your managed users',
    auth: 'required',
    response: schemas.UserList,
    handler: ({ caller }) => listManagedUsers(ctx, caller),
  });
}
