// /v1 user routes:
//   GET  /v1/users/me                 the caller's profile, scopes and contacts
//   POST /v1/users/profile            edit display name, bio, bot metadata
//   GET  /v1/users/by-tag/:user_tag   a user by tag (case-insensitive, optional leading @)
//   GET  /v1/users/search?q=&limit=   users by tag prefix, then by display-name word prefixes
//   POST /v1/managed/users            create a managed user or bot under the caller
//   GET  /v1/managed/users            the caller's managed users
//   PATCH  /v1/managed/users/:uid                           edit its profile and bot metadata
//   POST   /v1/managed/users/:uid/deactivate, /reactivate   suspend it (keys, sessions, webhooks) or resume
//   DELETE /v1/managed/users/:uid                           delete it (its messages stay, attributed)
//   GET    /v1/managed/users/:uid/managers                  its managers
//   POST   /v1/managed/users/:uid/managers                  add a manager
//   DELETE /v1/managed/users/:uid/managers/:manager_uid     remove a manager (never the last)
// Only a current manager may call these; anyone else gets the 403 `not_manager` that the delivery
// log and delegation answer, whether or not the uid exists (managed-user-policy.ts).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { deactivateManagedUser, reactivateManagedUser } from './deactivate-managed-user.js';
import { deleteManagedUser } from './delete-managed-user.js';
import { addManager, listManagers, removeManager } from './manage-managers.js';
import { createManagedUser, listManagedUsers } from './manage-users.js';
import { getMe, getUserByTag } from './read-users.js';
import { NAME_CANDIDATES, searchUsers } from './search-users.js';
import { updateManagedUser } from './update-managed-user.js';
import { updateProfile } from './update-profile.js';
import * as schemas from './users.schemas.js';

const TAG = 'users';
const NOT_MANAGER =
  'You do not manage that user (`not_manager`, also for an unknown or deleted uid), or `messages.write` is missing.';

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
      'holds `messages.read`, and bots none of whose managers holds it) and deactivated managed users are ' +
      'left out. Any signed-in ' +
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
    description: 'Deactivated ones included (`deactivated_at` set); deleted ones are not listed.',
    auth: 'required',
    response: schemas.UserList,
    handler: ({ caller }) => listManagedUsers(ctx, caller),
  });

  routes.add({
    method: 'patch',
    path: '/v1/managed/users/:uid',
    tag: TAG,
    summary: 'Edit a managed user',
    description:
      'Display name, bio, `is_bot` and bot metadata, with the rules of POST /v1/users/profile: only the ' +
      'fields sent change. Any current manager; a deactivated user can be edited too.',
    auth: 'required',
    params: schemas.UidParam,
    body: schemas.ManagedUserUpdateInput,
    response: schemas.UserOutput,
    errors: { 403: NOT_MANAGER },
    handler: ({ caller, params, body }) => updateManagedUser(ctx, caller, params.uid, body),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/users/:uid/deactivate',
    tag: TAG,
    summary: 'Deactivate a managed user',
    description:
      'Suspends it: at once, on every instance, its API keys and every session (its own and its managers’ ' +
      'delegated and act-as ones) fail with 401, nobody can delegate to it or act as it (403 ' +
      '`account_disabled`), and its webhook endpoint gets no more deliveries (pending ones become ' +
      '`disabled`). Its sessions end for good; its keys work again after reactivation. It stays in its ' +
      'managers’ lists with `deactivated_at` set, and is left out of user search and the model list. ' +
      'Deactivating again changes nothing.',
    auth: 'required',
    params: schemas.UidParam,
    response: schemas.UserOutput,
    errors: { 403: NOT_MANAGER },
    handler: ({ caller, params }) => deactivateManagedUser(ctx, caller, params.uid),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/users/:uid/reactivate',
    tag: TAG,
    summary: 'Reactivate a managed user',
    description:
      'Ends a deactivation: its keys that were neither revoked nor expired work again, managers may ' +
      'delegate to it again, and new events reach its webhook endpoint (those of the deactivated time ' +
      'are not sent). Reactivating an active user changes nothing.',
    auth: 'required',
    params: schemas.UidParam,
    response: schemas.UserOutput,
    errors: { 403: NOT_MANAGER },
    handler: ({ caller, params }) => reactivateManagedUser(ctx, caller, params.uid),
  });

  routes.add({
    method: 'delete',
    path: '/v1/managed/users/:uid',
    tag: TAG,
    summary: 'Delete a managed user',
    description:
      'It can no longer be used: at once, on every instance, its keys are revoked and its sessions end, ' +
      'and its contacts (the webhook endpoint) are removed. Its messages stay and stay attributed: the ' +
      'account remains as a deactivated tombstone with its uid and tag (the tag is not freed), and its ' +
      'managers may still edit or delete those messages. It leaves its managers’ lists, and every ' +
      'managed route answers its uid as an unknown one. Not undone.',
    auth: 'required',
    params: schemas.UidParam,
    response: schemas.ManagedUserDeleted,
    errors: { 403: NOT_MANAGER },
    handler: ({ caller, params }) => deleteManagedUser(ctx, caller, params.uid),
  });

  routes.add({
    method: 'get',
    path: '/v1/managed/users/:uid/managers',
    tag: TAG,
    summary: 'Managers of a managed user',
    description: 'Oldest first. Any current manager; needs `messages.read`.',
    auth: 'required',
    params: schemas.UidParam,
    response: schemas.ManagerList,
    errors: { 403: 'You do not manage that user (`not_manager`), or `messages.read` is missing.' },
    handler: ({ caller, params }) => listManagers(ctx, caller, params.uid),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/users/:uid/managers',
    tag: TAG,
    summary: 'Add a manager',
    description:
      'Any current manager may make another regular user a manager (no acceptance step); a managed user ' +
      'cannot manage. Adding a current manager changes nothing. Answers the managers now. To hand a bot ' +
      'over, add the new manager, then remove yourself.',
    auth: 'required',
    params: schemas.UidParam,
    body: schemas.ManagerAddInput,
    response: schemas.ManagerList,
    errors: {
      403: `${NOT_MANAGER} Also \`managed_user_forbidden\` when the named user is a managed user.`,
      404: 'No such user to add (`user_not_found`).',
    },
    handler: ({ caller, params, body }) => addManager(ctx, caller, params.uid, body),
  });

  routes.add({
    method: 'delete',
    path: '/v1/managed/users/:uid/managers/:manager_uid',
    tag: TAG,
    summary: 'Remove a manager',
    description:
      'Any current manager may remove any manager, themselves included, but never the last one. The ' +
      'delegated and act-as sessions the removed manager holds for this user end at once, on every ' +
      'instance. Answers the managers now.',
    auth: 'required',
    params: schemas.ManagerParam,
    response: schemas.ManagerList,
    errors: {
      403: NOT_MANAGER,
      404: '`manager_not_found`: that user does not manage this one.',
      409: '`last_manager`: it is the only manager left; add another first, or delete the managed user.',
    },
    handler: ({ caller, params }) => removeManager(ctx, caller, params.uid, params.manager_uid),
  });
}
