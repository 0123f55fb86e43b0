// Contact verification and password reset:
//   POST /v1/auth/contacts/email/request      send a 6-digit code to an email of yours
//   POST /v1/auth/contacts/email/verify       the code → email verified (first one grants writing)
//   POST /v1/auth/contacts/phone/request      send a code by SMS (E.164 number)
//   POST /v1/auth/contacts/phone/verify       the code → phone verified (first one grants writing)
//   POST /v1/auth/contacts/endpoint/request   start verifying a webhook URL
//   POST /v1/auth/contacts/endpoint/verify    the URL echoes a nonce → endpoint verified, secret shown
//   POST /v1/auth/password/reset/request      a reset code by email (no authentication)
//   POST /v1/auth/password/reset              code + new password → signed in, other sessions end
//   POST /v1/auth/email-code/request          a sign-in code by email (no authentication)
//   POST /v1/auth/email-code/login            email + code → signed in
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import type { RateLimits } from '../../platform/rate-limits.js';
import { deliverToken } from '../identity/token-cookie.js';
import * as schemas from './contacts.schemas.js';
import { logInWithEmailCode, requestEmailCode } from './log-in-with-email-code.js';
import { requestContactChallenge } from './request-contact-challenge.js';
import { requestPasswordReset, resetPassword } from './reset-password.js';
import { verifyContactCode, verifyEndpoint } from './verify-contact.js';

const TAG = 'auth';
const authLimit = (limits: RateLimits) => limits.authByAddress;

const CODE_RULES =
  'Codes are 6 digits, valid for 10 minutes (SKEIN_CODE_TTL_SECONDS), single use; the 5th wrong try ' +
  'ends the challenge, after which the contact answers 404 no_active_challenge until a new code is asked for. ' +
  'A new request replaces the previous code. Wrong codes are also limited per account ' +
  '(SKEIN_CODE_FAILURES_PER_15_MIN, then 429).';
const REQUEST_LIMITS =
  'Requests are limited per client address (SKEIN_RATE_LIMIT_AUTH_PER_MIN), per account and per ' +
  'contact address (SKEIN_VERIFICATION_REQUESTS_PER_HOUR); over a limit the answer is 429 with Retry-After.';
const SCOPE_GRANT =
  'The account’s first verified email or phone adds `messages.write` and `realtime.connect` to its grant, and ' +
  'its unrestricted sessions (no requested permissions, not minted from a key with `scopes_cap`) get them at ' +
  'once, including the one making this call. Restricted sessions keep what they froze; mint a new one. A later ' +
  'verification grants nothing more, so a scope an administrator removed does not come back.';
const MANAGED = 'Managed users accept only endpoint contacts (403 managed_user_forbidden).';

export function mountContactRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'post',
    path: '/v1/auth/contacts/email/request',
    tag: TAG,
    summary: 'Send a verification code to an email address',
    description:
      `Sends a 6-digit code to \`email\` (lower-cased). ${REQUEST_LIMITS} ${MANAGED} ` +
      'With the default `log` transport the mail is a line in $SKEIN_DATA_DIR/outbox.jsonl.',
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.EmailChallengeInput,
    response: schemas.ChallengeResponse,
    errors: {
      400: 'Missing or invalid email (invalid_email).',
      403: 'Managed users cannot hold an email.',
      500: 'The mail could not be sent (delivery_failed); nothing changed.',
    },
    handler: ({ caller, body }) => requestContactChallenge(ctx, caller, 'email', body.email),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/contacts/email/verify',
    tag: TAG,
    summary: 'Verify an email address with its code',
    description: `${CODE_RULES} ${SCOPE_GRANT} ${MANAGED}`,
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.EmailVerifyInput,
    response: schemas.VerificationResponse,
    errors: {
      400: 'Missing parameters, invalid email, or a wrong or malformed code (invalid_code).',
      403: 'Managed users cannot hold an email.',
      404: 'No active challenge for that email (never asked, used, expired, or dead after 5 wrong tries).',
    },
    handler: ({ caller, body }) => verifyContactCode(ctx, caller, 'email', body.email, body.code),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/contacts/phone/request',
    tag: TAG,
    summary: 'Send a verification code by SMS',
    description:
      `Sends a 6-digit code to \`phone\`, an E.164 number (spaces, dashes and parentheses are dropped; the ` +
      `stored and answered form is E.164). ${REQUEST_LIMITS} ${MANAGED}`,
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.PhoneChallengeInput,
    response: schemas.ChallengeResponse,
    errors: {
      400: 'Missing or invalid phone number (invalid_phone).',
      403: 'Managed users cannot hold a phone number.',
      500: 'The SMS could not be sent (delivery_failed); nothing changed.',
    },
    handler: ({ caller, body }) => requestContactChallenge(ctx, caller, 'phone', body.phone),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/contacts/phone/verify',
    tag: TAG,
    summary: 'Verify a phone number with its code',
    description: `${CODE_RULES} ${SCOPE_GRANT} ${MANAGED}`,
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.PhoneVerifyInput,
    response: schemas.VerificationResponse,
    errors: {
      400: 'Missing parameters, invalid phone, or a wrong or malformed code (invalid_code).',
      403: 'Managed users cannot hold a phone number.',
      404: 'No active challenge for that number.',
    },
    handler: ({ caller, body }) => verifyContactCode(ctx, caller, 'phone', body.phone, body.code),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/contacts/endpoint/request',
    tag: TAG,
    summary: 'Start verifying a webhook endpoint',
    description:
      'Checks the URL (http or https, a host, no user:password) and opens a challenge for it, valid for ' +
      '10 minutes. Nothing is sent yet (`sent` is always true in the shape): the nonce goes out on ' +
      `/v1/auth/contacts/endpoint/verify, so the endpoint can be made ready in between. ${REQUEST_LIMITS}`,
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.EndpointChallengeInput,
    response: schemas.ChallengeResponse,
    errors: { 400: 'Missing or invalid URL (invalid_endpoint).' },
    handler: ({ caller, body }) => requestContactChallenge(ctx, caller, 'endpoint', body.url),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/contacts/endpoint/verify',
    tag: TAG,
    summary: 'Verify a webhook endpoint by echo',
    description:
      'Sends a fresh nonce to the URL trying, in order: a JSON POST `{"nonce": "..."}`, a text/plain POST of ' +
      'the nonce, a GET with `?nonce=...`. The first 2xx answer whose body is the nonce, the nonce as a JSON ' +
      'string, or `{"nonce": "..."}` proves the endpoint. Each attempt has 6 seconds; redirects are not ' +
      'followed; private, loopback and link-local addresses are refused unless SKEIN_WEBHOOK_ALLOW_PRIVATE=true. ' +
      'On success the URL becomes your one endpoint contact (a new URL replaces the previous one, and verifying ' +
      'again turns an endpoint disabled by 410 back on) and the answer carries a new `secret` (`whsec_...`), ' +
      'shown only here, which signs every webhook delivery (Standard Webhooks). A failed verify leaves the ' +
      'challenge open until it expires. Counts against the per-account request limit.',
    auth: 'required',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.EndpointVerifyInput,
    response: schemas.VerificationResponse,
    errors: {
      400:
        'Invalid or refused URL (invalid_endpoint), the endpoint answered without the nonce (nonce_mismatch), ' +
        'or no attempt got a 2xx answer (endpoint_unreachable; the reason is logged, not answered).',
      404: 'No active challenge for that URL.',
    },
    handler: ({ caller, body }) => verifyEndpoint(ctx, caller, body.url),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/password/reset/request',
    tag: TAG,
    summary: 'Ask for a password reset code',
    description:
      'Give `email` or `user_tag` (or both). The code goes by email, and only to an address the account has ' +
      'verified (with `user_tag` alone, the most recently verified one; with both, that email if the account ' +
      'verified it). Answers 200 with a well-formed ChallengeResponse whether or not such an account exists; ' +
      'accounts without a verified email and managed users (no password) are treated as unknown. Only an email ' +
      'that several accounts have verified answers 409, unless `user_tag` says which. Limited per client address ' +
      'and per typed email or tag (SKEIN_VERIFICATION_REQUESTS_PER_HOUR). A new request replaces the previous code.',
    auth: 'none',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.PasswordResetRequestInput,
    response: schemas.ChallengeResponse,
    errors: {
      400: 'Neither email nor user_tag (missing_field), or an invalid email (invalid_email).',
      409: 'Several accounts have verified that email; add user_tag (ambiguous_email).',
    },
    handler: ({ body }) => requestPasswordReset(ctx, body),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/password/reset',
    tag: TAG,
    summary: 'Reset your password with the emailed code',
    description:
      'Give the account as in the request (`email` and/or `user_tag`), the `code` and `new_password` (10 ' +
      'characters at least, not a common one, at most 72 bytes in UTF-8; checked first, so a weak or long ' +
      'choice costs no try). Signs the user in ' +
      '(TokenResponse and the `svc_session` cookie) and ends every other session of the account. An unknown ' +
      'account, a missing, used or expired challenge and a wrong code all answer 400 invalid_code. Code rules: ' +
      '6 digits, 10 minutes, single use, dead at the 5th wrong try; wrong codes are limited per account.',
    auth: 'none',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.PasswordResetInput,
    response: schemas.TokenResponse,
    errors: {
      400: 'Missing parameters, a wrong, used or expired code (invalid_code), or a weak password (weak_password).',
      409: 'Several accounts have verified that email; add user_tag (ambiguous_email).',
    },
    handler: async ({ body, cookies, ip }) => deliverToken(cookies, await resetPassword(ctx, body, ip)),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/email-code/request',
    tag: TAG,
    summary: 'Ask for a sign-in code by email',
    description:
      'Sign-in without a password: a 6-digit code goes to `email` if exactly one account has verified it ' +
      '(an address only given at registration does not count). Answers 200 with a well-formed ' +
      'ChallengeResponse whether or not such an account exists; only an email that several accounts have ' +
      'verified answers 409, unless `user_tag` says which (an account that has not verified the email then ' +
      'answers as an unknown one). Limited per client address and per email or tag ' +
      '(SKEIN_VERIFICATION_REQUESTS_PER_HOUR, then 429); past the account’s own hourly budget for emailed codes (shared with password reset) the ' +
      'answer stays the same but nothing is sent. A new request replaces the previous code.',
    auth: 'none',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.EmailCodeRequestInput,
    response: schemas.ChallengeResponse,
    errors: {
      400: 'Missing or invalid email (invalid_email).',
      409: 'Several accounts have verified that email; add user_tag (ambiguous_email).',
    },
    handler: ({ body }) => requestEmailCode(ctx, body),
  });

  routes.add({
    method: 'post',
    path: '/v1/auth/email-code/login',
    tag: TAG,
    summary: 'Sign in with an emailed code',
    description:
      'Answers a TokenResponse and sets the `svc_session` cookie, as password login does; `device_id` names ' +
      'the session in GET /v1/auth/sessions. Give `user_tag` as in the request when several accounts verified ' +
      'the email. An unknown email, a missing, used or expired code and a wrong code all answer 400 ' +
      'invalid_code. Code rules: 6 digits, valid for 10 minutes (SKEIN_CODE_TTL_SECONDS), ' +
      'single use, dead at the 5th wrong try; wrong codes are also limited per account and client address ' +
      '(SKEIN_CODE_FAILURES_PER_15_MIN, shared with password reset codes; then 429). An account an ' +
      'administrator disabled gets 403 account_disabled, and only with the right code.',
    auth: 'none',
    rateLimit: authLimit,
    missingIsBadRequest: true,
    body: schemas.EmailCodeLoginInput,
    response: schemas.TokenResponse,
    errors: {
      400: 'Missing parameters, an invalid email, or a wrong, used or expired code (invalid_code).',
      403: 'The account is disabled (account_disabled).',
      409: 'Several accounts have verified that email; add user_tag (ambiguous_email).',
    },
    handler: async ({ body, cookies, ip }) => deliverToken(cookies, await logInWithEmailCode(ctx, body, ip)),
  });
}
