// /v1 auth routes:
//   GET  /v1/auth/.well-known/jwks.json   legacy stub, always {"keys": []}
//   POST /v1/auth/token                   API key (x-api-key) → session
//   GET  /v1/auth/keys                    the caller's API keys
//   POST /v1/auth/keys/self               new API key (secret shown once), never outliving its parent key
//   DELETE /v1/auth/keys/:key_id          revoke a key, the keys made with it, their sessions
//   GET  /v1/auth/session                 the presented session (pure read)
//   GET  /v1/auth/sessions                the caller's live sessions, which one is current
//   DELETE /v1/auth/sessions/:session_id  end one of them (the current one too: like logout)
//   POST /v1/auth/sessions/revoke-others  end all but the current one
//   POST /v1/auth/sessions/refresh        same token, new expiry
//   POST /v1/auth/password/login          user_tag or email + password → session
//   POST /v1/auth/password/change         new password; other sessions end
//   POST /v1/auth/logout                  end the presented sessions (manager's too), clear cookies
//   POST /v1/auth/act-as/:subject_uid     act as a managed user (manager kept in svc_mgr_session)
//   POST /v1/auth/act-as/return           back to the manager session
//   POST /v1/auth/register                new account, signed in
//   POST /v1/managed/auth/delegate        token for a managed user (for scripts and bots)
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import type { RateLimits } from '../../platform/rate-limits.js';
import { delegateSession, returnFromActAs } from './delegate-session.js';
import { changePassword } from './change-password.js';
import { exchangeApiKey } from './exchange-api-key.js';
import * as schemas from './identity.schemas.js';
import { logInWithPassword } from './log-in-with-password.js';
import { logOut } from './log-out.js';
import { createApiKey, listApiKeys, revokeApiKey } from './manage-api-keys.js';
import { listSessions, revokeOtherSessions, revokeSession } from './manage-sessions.js';
import { readSession, refreshSession } from './read-session.js';
import { registerUser } from './register-user.js';
import { clearEndedSessionCookies, deliverToken, toTokenResponse } from './token-cookie.js';

const TAG = 'auth';
const authLimit = (limits: RateLimits) => limits.authByAddress;

export function mountIdentityRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/auth/.well-known/jwks.json',
    tag: TAG,
    summary: 'JWKS (legacy stub)',
    description: 'Deprecated. Sessions are opaque, so there are never keys.',
    auth: 'none',
    response: schemas.Jwks,
    handler: () => Promise.resolve({ keys: [] }),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/token',
    tag: TAG,
    summary: 'Exchange an API key for a session',
    description:
      'Send the key in `x-api-key`. The session’s permissions are requested ∩ the key’s `scopes_cap` ∩ the ' +
      'account’s grant. Requires `has_api_access` on the account. `aud`, `cnf` and `act` are ignored.',
    auth: 'none',
    rateLimit: authLimit,
    body: schemas.TokenRequest,
    headers: schemas.ApiKeyHeader,
    response: schemas.TokenResponse,
    errors: {
      400: 'x-api-key missing.',
      401: 'Invalid key.',
      403: 'Partner access (has_api_access) required.',
    },
    handler: async ({ body, credentials, cookies }) =>
      deliverToken(cookies, await exchangeApiKey(ctx, { ...body, apiKey: credentials.apiKey })),
  });

  routes.add({
    method: 'get',
    path: '/v1/auth/keys',
    tag: TAG,
    summary: 'List your API keys',
    auth: 'required',
    response: schemas.KeyList,
    handler: ({ caller }) => listApiKeys(ctx, caller),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/keys/self',
    tag: TAG,
    summary: 'Create an API key for yourself',
    description:
      'The `sk_` secret appears only in this answer. The key’s cap never exceeds the restrictions of the ' +
      'credential that creates it, nor does the key outlive the API key behind that credential. Made with ' +
      'a key (`x-api-key`, or a session from POST /v1/auth/token), it is that key’s child: its `expires_at` ' +
      'is capped at the parent’s (asked later or not at all: the parent’s), and revoking the parent ends ' +
      'it at once, with the sessions exchanged from it. With a delegated token, the key belongs to the ' +
      'managed user (a bot’s first key, its permanent key): its `expires_at` is capped at the expiry of ' +
      'the manager’s key behind the delegation, if any, and it is not ended when the manager’s key is ' +
      'revoked. Made with a session signed in otherwise (password, code), nothing caps its expiry.',
    auth: 'required',
    body: schemas.KeyCreateInput,
    response: schemas.KeyCreated,
    handler: ({ caller, body }) => createApiKey(ctx, caller, body),
  });

  routes.add({
    method: 'delete',
    path: '/v1/auth/keys/:key_id',
    tag: TAG,
    summary: 'Revoke an API key',
    description:
      'Takes effect at once, for the key, for every key made with it (and theirs, down the line), and for ' +
      'every session minted from any of them. Keys a delegation made for a managed user are not among them.',
    auth: 'required',
    params: schemas.KeyIdParam,
    response: schemas.KeyRevoked,
    errors: { 404: 'You have no such key.' },
    handler: ({ caller, params }) => revokeApiKey(ctx, caller, params.key_id),
  });

  routes.add({
    method: 'get',
    path: '/v1/auth/session',
    tag: TAG,
    summary: 'Read the current session',
    description: 'A pure read: it never changes the stored permissions.',
    auth: 'required',
    response: schemas.SessionOutput,
    handler: ({ caller }) => readSession(ctx, caller),
  });

  routes.add({
    method: 'get',
    path: '/v1/auth/sessions',
    tag: TAG,
    summary: 'List your sessions',
    description:
      'Your live sessions (not revoked, not expired, not ended with the key or the manager session that ' +
      'made them), newest first, with `current` true for the one making this request. With an API key none ' +
      'is current; a delegated session lists the sessions of the user it acts as. No secret appears: ' +
      '`session_id` only names a session. `last_used_at` is written at most once a minute.',
    auth: 'required',
    response: schemas.SessionList,
    handler: ({ caller }) => listSessions(ctx, caller),
  });

  routes.add({
    method: 'delete',
    path: '/v1/auth/sessions/:session_id',
    tag: TAG,
    summary: 'End one of your sessions',
    description:
      'Takes effect at once on every instance: the next request with that token is 401, and so is its ' +
      'refresh; delegated sessions minted through it end too. Ending the session making the request works ' +
      'like logout for it (the `svc_session` cookie is cleared when it holds that session). Ending an ' +
      'already ended session of yours answers the same.',
    auth: 'required',
    params: schemas.SessionIdParam,
    response: schemas.SessionRevoked,
    errors: { 404: 'You have no session with that id (`session_not_found`), whoever’s it is.' },
    handler: async ({ caller, params, cookies }) => {
      const result = await revokeSession(ctx, caller, params.session_id);
      clearEndedSessionCookies(cookies, [result.session_id]);
      return result;
    },
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/sessions/revoke-others',
    tag: TAG,
    summary: 'End all your other sessions',
    description:
      '“Sign out everywhere else”: ends every live session of yours but the one making the request, at once ' +
      'on every instance, and answers their ids. With an API key there is no current session, so every ' +
      'session ends.',
    auth: 'required',
    response: schemas.OtherSessionsRevoked,
    handler: async ({ caller, cookies }) => {
      const result = await revokeOtherSessions(ctx, caller);
      clearEndedSessionCookies(cookies, result.revoked);
      return result;
    },
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/sessions/refresh',
    tag: TAG,
    summary: 'Extend the current session',
    description:
      'Answers the same access token with a new expiry (no new secret). A session whose frozen permissions ' +
      'came out empty has them recomputed. `X-Correlation-Id` is echoed.',
    auth: 'required',
    body: schemas.RefreshInput,
    response: schemas.TokenResponse,
    handler: async ({ caller, cookies }) => deliverToken(cookies, await refreshSession(ctx, caller)),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/password/login',
    tag: TAG,
    summary: 'Sign in with a password',
    description:
      'Give `user_tag` or `email`; an email signs in only the account that has verified it. Failed attempts ' +
      'are limited per account and per address.',
    auth: 'none',
    rateLimit: authLimit,
    body: schemas.LoginInput,
    response: schemas.TokenResponse,
    errors: {
      401: 'Wrong user or password (the same answer for an unknown user or an unverified email).',
      409: 'Several accounts have verified this email (`ambiguous_email`); sign in with `user_tag`.',
    },
    handler: async ({ body, cookies, ip }) => deliverToken(cookies, await logInWithPassword(ctx, body, ip)),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/password/change',
    tag: TAG,
    summary: 'Change your password',
    description:
      'Ends every other session of the account and answers a new one, in one transaction. `new_password`: 10 ' +
      'characters at least, not a common one, at most 72 bytes in UTF-8 (422 beyond).',
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.PasswordChangeInput,
    response: schemas.TokenResponse,
    errors: {
      400: 'Missing password, or the new one is weak.',
      401: 'Wrong current password.',
      403: 'Managed users cannot have passwords.',
    },
    handler: async ({ caller, body, cookies, ip }) =>
      deliverToken(cookies, await changePassword(ctx, caller, body, ip)),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/logout',
    tag: TAG,
    summary: 'Sign out',
    description:
      'Revokes every session the request presents (Bearer, `svc_session`, and the manager session kept in ' +
      '`svc_mgr_session` while acting as a managed user) and clears both session cookies. Idempotent. ' +
      'A cookie-only request from another site’s Origin is refused (403 `csrf_rejected`).',
    auth: 'none',
    response: schemas.LogoutOutput,
    errors: { 403: 'Cookie-only request from another site (`csrf_rejected`).' },
    handler: async ({ credentials, cookies }) => {
      const result = await logOut(ctx, credentials, cookies.managerBackup());
      cookies.clearSession();
      cookies.clearManagerBackup();
      return result;
    },
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/act-as/return',
    tag: TAG,
    summary: 'Return from act-as to the manager session',
    description: 'Restores the session kept in the `svc_mgr_session` cookie and ends the delegated one.',
    auth: 'optional',
    response: schemas.TokenResponse,
    errors: { 401: 'No valid manager session to return to.' },
    handler: async ({ caller, cookies }) => {
      const back = await returnFromActAs(ctx, caller, cookies.managerBackup());
      cookies.clearManagerBackup();
      return deliverToken(cookies, {
        access_token: back.token,
        expires_in: back.expires_in,
        expires_at: back.expires_at,
      });
    },
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/act-as/:subject_uid',
    tag: TAG,
    summary: 'Act as a user you manage',
    description:
      'Answers a delegated session for the subject and sets it as `svc_session`; your own session is kept ' +
      'in `svc_mgr_session` for /v1/auth/act-as/return.',
    auth: 'required',
    params: schemas.SubjectParam,
    response: schemas.TokenResponse,
    errors: {
      403: 'You do not manage that user (`not_manager`), or it is deactivated (`account_disabled`).',
    },
    handler: async ({ caller, params, cookies }) => {
      const delegated = await delegateSession(ctx, caller, params.subject_uid);
      if (caller.sessionToken) cookies.setManagerBackup(caller.sessionToken, ctx.config.sessionTtlSeconds);
      return deliverToken(cookies, delegated);
    },
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/register',
    tag: TAG,
    summary: 'Create an account',
    description:
      'Tags are 2–32 of `[A-Za-z0-9_.-]`, starting with a letter or digit, unique case-insensitively. ' +
      'Passwords need 10 characters, must not be common, and are at most 72 bytes in UTF-8 (bcrypt reads no ' +
      'further, so longer ones are refused with 422 rather than cut). New accounts can read; writing needs a ' +
      'verified contact.',
    auth: 'none',
    rateLimit: authLimit,
    body: schemas.RegisterInput,
    response: schemas.TokenResponse,
    errors: { 400: 'Weak password.', 409: 'User tag taken.' },
    handler: async ({ body, cookies }) => deliverToken(cookies, await registerUser(ctx, body)),
  });

  routes.add({
    method: 'post',
    path: '/v1/managed/auth/delegate',
    tag: TAG,
    summary: 'Get a token for a managed user',
    description:
      'With the manager’s bearer token; answers a session for the managed user and sets no cookie, so the ' +
      'manager’s own browser session stays as it is. Step (b) of minting a bot’s first API key.',
    auth: 'required',
    rateLimit: authLimit,
    body: schemas.DelegateInput,
    response: schemas.DelegatedTokenResponse,
    errors: {
      403: 'You do not manage that user (`not_manager`), or it is deactivated (`account_disabled`).',
    },
    handler: async ({ caller, body }) =>
      toTokenResponse(await delegateSession(ctx, caller, body.managed_uid)),
  });
}
