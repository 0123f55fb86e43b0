// Shapes of the auth endpoints' input and output (validation and OpenAPI).
import { eachRequired, z } from '../../platform/openapi.js';
import { SCOPES, parseScopeList } from '../../platform/auth/scopes.js';
import { Uid, UserTag } from '../users/users.schemas.js';
import { SESSION_METHODS } from './identity-repository.js';
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH, fitsBcrypt } from './passwords.js';

/**
 * What parseScopeList accepts, for the document (the refine below is invisible to it): known scope
 * names separated by whitespace, blanks around them allowed.
 */
const SCOPE_LIST_PATTERN = `^\\s*(?:(?:${SCOPES.map((scope) => scope.replaceAll('.', '\\.')).join('|')})(?:\\s+|$))*$`;

/** A space-delimited scope string; unknown scope names are a validation error. */
export const ScopeString = z
  .string()
  .max(500)
  .superRefine((text, ctx) => {
    const { unknown } = parseScopeList(text);
    if (unknown.length > 0)
      ctx.addIssue({ code: 'custom', message: `unknown scopes: ${unknown.join(', ')}` });
  })
  .openapi({
    description: `Space-delimited scopes, of: ${SCOPES.join(', ')}. Any other name is 422.`,
    pattern: SCOPE_LIST_PATTERN,
    example: 'messages.read',
  });

const TOKEN_FIELDS = {
  access_token: z.string().openapi({ example: 'svc_session_0123456789abcdef.<secret>' }),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  expires_at: z.string(),
};

export const TokenResponse = z
  .object(TOKEN_FIELDS)
  .openapi('TokenResponse', { description: 'Also sets the HttpOnly `svc_session` cookie.' });
export type TokenResponse = z.infer<typeof TokenResponse>;

/** The token of POST /v1/managed/auth/delegate: TokenResponse's shape, but no cookie comes with it. */
export const DelegatedTokenResponse = z.object(TOKEN_FIELDS).openapi('DelegatedTokenResponse', {
  description:
    'A session of the managed user, for a script or a bot. No cookie is set: the caller’s own browser ' +
    'session stays as it is.',
});

/** A client's name for the device a session is for; GET /v1/auth/sessions shows it back. */
export const DeviceId = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: 'Your name for this device; the session list shows it.', example: 'ada-laptop' });

export const TokenRequest = z
  .object({
    requested_permissions: ScopeString.optional(),
    requested_scopes: ScopeString.optional().openapi({ description: 'Alias of requested_permissions.' }),
    device_id: DeviceId.optional(),
    aud: z.unknown().optional().openapi({ description: 'Accepted and ignored (deprecated).' }),
    cnf: z.unknown().optional().openapi({ description: 'Accepted and ignored (deprecated).' }),
    act: z.unknown().optional().openapi({ description: 'Accepted and ignored (deprecated).' }),
  })
  .openapi('TokenRequest');

export const KeyCreateInput = z
  .object({
    label: z.string().trim().min(1).max(64).optional(),
    scopes_cap: ScopeString.optional(),
    expires_at: z.iso
      .datetime({ offset: true })
      .refine(
        (value) => Number.isNaN(Date.parse(value)) || Date.parse(value) > Date.now(),
        'must be in the future',
      )
      .optional()
      .openapi({
        description:
          'When the key stops working; must be in the future (422 otherwise). Absent: never. Capped, without ' +
          'an error, at the expiry of the API key behind the creating credential: the key of an x-api-key ' +
          'request or of a session exchanged from a key, or, through a delegation, the manager’s key ' +
          '(the answer’s `expires_at` says what was kept).',
      }),
  })
  .strict()
  .openapi('KeyCreateInput');

export const KeyOutput = z
  .object({
    key_id: z.string(),
    label: z.string().nullable(),
    prefix: z.string().openapi({ description: 'First characters of the key, to recognise it.' }),
    scopes_cap: z.string().nullable().openapi({ description: 'Space-delimited ceiling; null means none.' }),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    revoked: z.boolean().openapi({
      description:
        'True once the key is revoked, or the key it was made with is (a key made with a key dies with it).',
    }),
  })
  .openapi('ApiKey');
export type KeyOutput = z.infer<typeof KeyOutput>;

export const KeyList = z.object({ keys: z.array(KeyOutput) }).openapi('ApiKeyList');

export const KeyCreated = z
  .object({
    key_id: z.string(),
    key: z.string().openapi({ description: 'The secret `sk_...` key; shown only this once.' }),
    label: z.string().nullable(),
    scopes_cap: z.string().nullable(),
    expires_at: z
      .string()
      .nullable()
      .openapi({
        description:
          'When it stops working, after the cap at the expiry of the key behind the creating credential; ' +
          'null: never.',
      }),
  })
  .openapi('ApiKeyCreated');
export type KeyCreated = z.infer<typeof KeyCreated>;

export const KeyIdParam = z.object({ key_id: z.string().regex(/^[0-9a-f]{8}$/) });
export const KeyRevoked = z.object({ key_id: z.string(), revoked: z.literal(true) }).openapi('ApiKeyRevoked');

export const SessionOutput = z
  .object({
    session_id: z.string(),
    uid: z.string(),
    user_tag: z.string(),
    permissions: z.array(z.enum(SCOPES)),
    created_at: z.string(),
    expires_at: z.string(),
    device_id: z.string().nullable(),
    acting_as: z.object({ manager_uid: z.string() }).nullable(),
  })
  .openapi('SessionOutput');
export type SessionOutput = z.infer<typeof SessionOutput>;

const SESSION_ID_PATTERN = /^[0-9a-f]{16}$/;

export const SessionSummary = z
  .object({
    session_id: z.string().openapi({
      description:
        'The id GET /v1/auth/session answers, to name the session in DELETE /v1/auth/sessions/{session_id}. ' +
        'It is not a credential: a token is this id and a secret that is never shown again.',
      example: '5f0c2a9e41b7d836',
    }),
    device_id: z.string().nullable().openapi({ description: 'As given when the session was made.' }),
    method: z
      .enum(SESSION_METHODS)
      .nullable()
      .openapi({
        description:
          'How the session was made: signing in with a password (or changing it), registering, a password ' +
          'reset, an emailed code, an API key exchange, or a manager’s delegation or act-as. Null when the ' +
          'record does not say (sessions from before this was recorded).',
      }),
    created_at: z.string(),
    last_used_at: z
      .string()
      .nullable()
      .openapi({
        description:
          'When a request last presented the session, to within a minute (it is written at most once a ' +
          'minute); the sign-in counts as the first use. Null for sessions from before it was recorded.',
      }),
    expires_at: z.string(),
    acting_as: z.object({ manager_uid: z.string() }).nullable(),
    current: z.boolean().openapi({ description: 'True for the session making this request.' }),
  })
  .openapi('SessionSummary');
export type SessionSummary = z.infer<typeof SessionSummary>;

export const SessionList = z
  .object({ sessions: z.array(SessionSummary) })
  .openapi('SessionList', { description: 'Live sessions only (not revoked, not expired), newest first.' });

export const SessionIdParam = z.object({
  session_id: z.string().regex(SESSION_ID_PATTERN).openapi({ example: '5f0c2a9e41b7d836' }),
});
export const SessionRevoked = z
  .object({ session_id: z.string(), revoked: z.literal(true) })
  .openapi('SessionRevoked');
export const OtherSessionsRevoked = z
  .object({
    revoked: z.array(z.string()).openapi({ description: 'The ids of the sessions that were ended.' }),
  })
  .openapi('OtherSessionsRevoked');

export const RefreshInput = z
  .object({})
  .loose()
  .openapi('RefreshInput', { description: 'Optional; ignored.' });

/** Every password field of the API (register, login, change, reset), so the byte limit is one rule. */
export const Password = z
  .string()
  .refine(fitsBcrypt, { message: `at most ${MAX_PASSWORD_BYTES} bytes in UTF-8` })
  .openapi({
    // Every character takes at least one byte, so this bound is implied by the byte limit.
    maxLength: MAX_PASSWORD_BYTES,
    description:
      `At most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (72 ASCII characters, fewer with accents or emoji). ` +
      'bcrypt ignores anything past 72 bytes, so longer passwords are refused with 422 rather than cut.',
  });

/**
 * A password being set (register, change, reset). It validates exactly as Password: the use case
 * answers 400 weak_password for a short or common one (assertStrongPassword), and the document
 * states the length here. Sign-in takes any length, so it keeps Password.
 */
export const NewPassword = Password.openapi({
  minLength: MIN_PASSWORD_LENGTH,
  description:
    `At least ${MIN_PASSWORD_LENGTH} characters and not a common password (400 weak_password otherwise); ` +
    `at most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (72 ASCII characters, fewer with accents or emoji). ` +
    'bcrypt ignores anything past 72 bytes, so longer passwords are refused with 422 rather than cut.',
});

export const LoginInput = z
  .object({
    user_tag: z.string().max(64).optional(),
    email: z.string().max(254).optional(),
    password: Password,
  })
  .strict()
  .refine((input) => (input.user_tag === undefined) !== (input.email === undefined), {
    message: 'give exactly one of user_tag or email',
    path: ['user_tag'],
  })
  .openapi('PasswordLoginRequest', {
    description: 'Exactly one of `user_tag` or `email` (422 for both or neither), and the password.',
    oneOf: eachRequired('user_tag', 'email'),
  });

export const PasswordChangeInput = z
  .object({ current_password: Password, new_password: NewPassword })
  .strict()
  .openapi('PasswordChangeRequest');

export const RegisterInput = z
  .object({
    user_tag: UserTag,
    password: NewPassword,
    email: z.email().max(254).optional(),
    display_name: z.string().trim().min(1).max(100).optional(),
  })
  .strict()
  .openapi('RegisterRequest');

export const LogoutOutput = z.object({ logged_out: z.literal(true) }).openapi('LogoutResponse');

export const DelegateInput = z.object({ managed_uid: Uid }).strict().openapi('DelegateRequest');
export const SubjectParam = z.object({ subject_uid: Uid });

export const Jwks = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())).max(0) })
  .openapi('Jwks', { description: 'Always empty.' });

/** POST /v1/auth/token reads the key from this header (400 missing_api_key without it). */
export const ApiKeyHeader = z.object({
  'x-api-key': z
    .string()
    .openapi({ description: 'An API key `sk_…` from POST /v1/auth/keys/self.', example: 'sk_3f9a1c02_…' }),
});
