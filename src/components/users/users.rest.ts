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
//   GET    /v1/managed/users/:uid/managers                  its managers and pending invitations
//   POST   /v1/managed/users/:uid/managers                  invite a manager (a manager once it accepts)
//   DELETE /v1/managed/users/:uid/managers/:manager_uid     remove a manager (never the last), or withdraw an invitation
// Only a current manager may call these; anyone else (a pending invitee too) gets the 403
// `not_manager` that the delivery log and delegation answer, whether or not the uid exists
// (managed-user-policy.ts).
//   GET  /v1/managed/invitations                  the caller's pending invitations to manage someone
//   POST /v1/managed/invitations/:uid/accept      accept one: the caller becomes a manager of uid
//   POST /v1/managed/invitations/:uid/decline     decline one
// Only the invited user answers its invitation (docs/decisions/023).
// Profile edits (the caller's own, a manager's of a managed user) share a per-account budget,
// SKEIN_RATE_LIMIT_ACTIONS_PER_MIN (security review 2026-12-02, item 1); creating a managed user past
// SKEIN_MAX_MANAGED_USERS is 422 `too_many_managed_users` (manage-users.ts).
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { deactivateManagedUser, reactivateManagedUser } from './deactivate-managed-user.js';
import { deleteManagedUser } from './delete-managed-user.js';
import { acceptInvitation, declineInvitation, listInvitations } from './answer-invitations.js';
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

/** The context origin's rule (context-origin.ts), as the three writes that set it answer. */
const CONTEXT_ORIGIN_404 =
  '`message_not_found`: `context_origin_id` names no message the bot may see (the answer for a missing one).';
const CONTEXT_ORIGIN_422 =
  '`validation_error`: a malformed field; or a `context_origin_id` with a reply parent the bot may see ' +
  '(type `not_a_root`; a parent hidden from the bot counts as none), ' +
  'or a non-null one on an account that is not a bot (type `not_a_bot`).';

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
    description:
      'Only the fields sent change. A bot sets its own starting context here: `context_origin_id` (top ' +
      'level or inside `bot`) names a root message it may see, whose chain of `default_outgoing` children ' +
      'GET /v1/messages/{message_id}/context puts before every conversation it reads; null clears it.',
    auth: 'required',
    accountLimit: (limits) => limits.profileEditsByAccount,
    body: schemas.ProfileUpdateInput,
    response: schemas.MeOutput,
    errors: { 404: CONTEXT_ORIGIN_404, 422: CONTEXT_ORIGIN_422 },
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
    handler: ({ caller, params }) => getUserByTag(ctx, caller, params.user_tag),
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
    handler: ({ caller, query }) => searchUsers(ctx, caller, query),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/users',
    tag: TAG,
    summary: 'Create a managed user or bot',
    description:
      'The caller becomes its manager. Needs `messages.write` (a managed user can write at once). Managed ' +
      'users have no password; they inherit the manager’s `has_api_access` at creation. A bot created with ' +
      '`bot.context_origin_id` may see only public messages yet, so that must be a public root message.',
    auth: 'required',
    status: 201,
    body: schemas.ManagedUserCreateInput,
    response: schemas.UserOutput,
    errors: {
      403: 'Managed users cannot manage users, or messages.write is missing.',
      404: CONTEXT_ORIGIN_404,
      409: 'User tag taken.',
      422:
        `${CONTEXT_ORIGIN_422} \`too_many_managed_users\`: you already manage SKEIN_MAX_MANAGED_USERS ` +
        'users (default 50; deleted ones do not count, deactivated ones do).',
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
      'fields sent change; `bot.context_origin_id` must name a root message the bot itself may see. Any ' +
      'current manager; a deactivated user can be edited too.',
    auth: 'required',
    accountLimit: (limits) => limits.profileEditsByAccount,
    params: schemas.UidParam,
    body: schemas.ManagedUserUpdateInput,
    response: schemas.UserOutput,
    errors: { 403: NOT_MANAGER, 404: CONTEXT_ORIGIN_404, 422: CONTEXT_ORIGIN_422 },
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
    description:
      'Its managers, oldest first, and the users invited to manage it who have not accepted yet ' +
      '(`invitations`, oldest first; they are no managers). Any current manager; needs `messages.read`.',
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
    summary: 'Invite a manager',
    description:
      'Any current manager may invite another regular user to manage this one; a managed user cannot ' +
      'manage. The invited user becomes a manager only when it accepts (POST ' +
      '/v1/managed/invitations/{uid}/accept): until then it is listed under `invitations`, has no right ' +
      'over this user, and lends it nothing. A managed user holds a scope, and has API access, only while ' +
      'some manager who agreed to manage it (its creator, or one who accepted) holds it, so an ' +
      'administrator’s restriction of a manager is not undone by inviting someone. Inviting a ' +
      'current manager, or a user already invited, changes nothing. Answers the managers and invitations ' +
      'now. To hand a bot over, invite the new manager; once it has accepted, remove yourself.',
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
    summary: 'Remove a manager or withdraw an invitation',
    description:
      'Any current manager may remove any manager, themselves included, but never the last one. The ' +
      'delegated and act-as sessions the removed manager holds for this user end at once, on every ' +
      'instance, and the invitations it sent for this user that are still pending are withdrawn. Naming ' +
      'a user with a pending invitation withdraws that invitation. Answers the managers and invitations now.',
    auth: 'required',
    params: schemas.ManagerParam,
    response: schemas.ManagerList,
    errors: {
      403: NOT_MANAGER,
      404: '`manager_not_found`: that user neither manages this one nor is invited to.',
      409: '`last_manager`: it is the only manager left; add another first, or delete the managed user.',
    },
    handler: ({ caller, params }) => removeManager(ctx, caller, params.uid, params.manager_uid),
  });
  routes.add({
    method: 'get',
    path: '/v1/managed/invitations',
    tag: TAG,
    summary: 'Your invitations to manage a user',
    description:
      'The pending invitations a manager sent you with POST /v1/managed/users/{uid}/managers, oldest ' +
      'first: the managed user, who invited you and when. You manage it only once you accept. An ' +
      'invitation ends when you accept or decline it, when its inviter stops managing the user or ' +
      'withdraws it, and when the user is deleted. Needs `messages.read`; managed users manage nobody ' +
      '(403 `not_manager`).',
    auth: 'required',
    response: schemas.ManagerInvitationList,
    errors: { 403: 'Managed users manage nobody (`not_manager`), or `messages.read` is missing.' },
    handler: ({ caller }) => listInvitations(ctx, caller),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/invitations/:uid/accept',
    tag: TAG,
    summary: 'Accept an invitation to manage a user',
    description:
      'You become a manager of `uid`, with every right of one (delegation, act-as, edits, its delivery ' +
      'log, its managers), and the managed user may hold the scopes and API access you hold (it holds ' +
      'only what some manager who agreed to manage it holds). Needs `messages.write`, as creating a ' +
      'managed user does. Answers its managers and invitations now.',
    auth: 'required',
    params: schemas.UidParam,
    response: schemas.ManagerList,
    errors: {
      403: 'Managed users manage nobody (`not_manager`), or `messages.write` is missing.',
      404:
        '`invitation_not_found`: you have no pending invitation to manage that user (never invited, ' +
        'declined, withdrawn, its inviter no longer manages it, or it was deleted).',
    },
    handler: ({ caller, params }) => acceptInvitation(ctx, caller, params.uid),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/invitations/:uid/decline',
    tag: TAG,
    summary: 'Decline an invitation to manage a user',
    description: 'The invitation ends; a manager may invite you again. Needs `messages.read`.',
    auth: 'required',
    params: schemas.UidParam,
    response: schemas.InvitationDeclined,
    errors: {
      403: 'Managed users manage nobody (`not_manager`), or `messages.read` is missing.',
      404: '`invitation_not_found`: you have no pending invitation to manage that user.',
    },
    handler: ({ caller, params }) => declineInvitation(ctx, caller, params.uid),
  });
}
