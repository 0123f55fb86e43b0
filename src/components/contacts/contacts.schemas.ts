// Shapes of contact verification and password reset (validation and OpenAPI). Fields are plain
// strings here: a malformed email, phone, URL or code is the spec's 400 (invalid_email, …), which the
// use cases answer, rather than the schema's 422. The document still states each format (through
// .openapi only, so validation is unchanged): contact-values.ts holds the rules it describes.
import { eachRequired, z } from '../../platform/openapi.js';
import { DeviceId, NewPassword } from '../identity/identity.schemas.js';

const EmailField = z.string().max(320).openapi({
  format: 'email',
  description: 'An email address (400 invalid_email otherwise).',
  example: 'ada@example.com',
});

/** Separators normalizePhone drops before it checks the E.164 form. */
const PHONE_SEPARATORS = '[\\s().-]*';
/** `+`, a digit 1–9 and 1–14 more digits, with separators anywhere (contact-values.ts normalizePhone). */
const PHONE_PATTERN = `^${PHONE_SEPARATORS}\\+${PHONE_SEPARATORS}[1-9](?:${PHONE_SEPARATORS}[0-9]){1,14}${PHONE_SEPARATORS}$`;
const PhoneField = z
  .string()
  .max(40)
  .openapi({
    pattern: PHONE_PATTERN,
    description:
      'E.164, e.g. +14155552671; spaces, dashes, dots and parentheses are dropped first. The number must ' +
      'also exist in its numbering plan. Otherwise 400 invalid_phone.',
    example: '+14155552671',
  });
const UrlField = z.string().max(2048).openapi({
  format: 'uri',
  description: 'An http(s) URL with a host and without user:password (400 invalid_endpoint otherwise).',
  example: 'https://bot.example.com/hook',
});
const CodeField = z
  .string()
  .max(32)
  .openapi({ description: 'The 6-digit code that was sent.', example: '042917' });
const TagField = z
  .string()
  .max(64)
  .openapi({ description: 'With or without a leading @; blank (or only @) counts as absent.' });

export const EmailChallengeInput = z.object({ email: EmailField }).strict().openapi('EmailChallengeRequest');
export const EmailVerifyInput = z
  .object({ email: EmailField, code: CodeField })
  .strict()
  .openapi('EmailVerifyRequest');
export const PhoneChallengeInput = z.object({ phone: PhoneField }).strict().openapi('PhoneChallengeRequest');
export const PhoneVerifyInput = z
  .object({ phone: PhoneField, code: CodeField })
  .strict()
  .openapi('PhoneVerifyRequest');
export const EndpointChallengeInput = z
  .object({ url: UrlField })
  .strict()
  .openapi('EndpointChallengeRequest');
export const EndpointVerifyInput = z.object({ url: UrlField }).strict().openapi('EndpointVerifyRequest');

export const ChallengeResponse = z
  .object({
    challenge_id: z.string(),
    expires_at: z.string(),
    sent: z.literal(true),
  })
  .openapi('ChallengeResponse', { description: 'The code itself never appears in an answer.' });
export type ChallengeResponse = z.infer<typeof ChallengeResponse>;

export const ContactKind = z.enum(['email', 'phone', 'endpoint']);
export type ContactKind = z.infer<typeof ContactKind>;

export const VerificationResponse = z
  .object({
    verified: z.literal(true),
    kind: ContactKind,
    value: z.string(),
    secret: z.string().optional().openapi({
      description: 'Endpoints only: the `whsec_` secret that signs webhook deliveries. Shown once.',
    }),
  })
  .openapi('VerificationResponse');
export type VerificationResponse = z.infer<typeof VerificationResponse>;

/**
 * The account of a reset: `email`, `user_tag` or both (reset-password.ts parseTarget answers 400
 * missing_field with neither). The anyOf sits inside allOf, which means the same in JSON Schema:
 * openapi-typescript reads an anyOf beside `properties` as "the object or an alternative", which
 * would let the SDK's type drop `code`; inside allOf the type is "the object and an alternative".
 */
const ACCOUNT_NAMED = { anyOf: eachRequired('email', 'user_tag') };

export const PasswordResetRequestInput = z
  .object({ email: EmailField.optional(), user_tag: TagField.optional() })
  .strict()
  .openapi('PasswordResetRequestBody', {
    description: 'Give `email` or `user_tag`, or both (400 missing_field with neither).',
    allOf: [ACCOUNT_NAMED],
  });
export type PasswordResetRequestInput = z.infer<typeof PasswordResetRequestInput>;

export const PasswordResetInput = z
  .object({
    email: EmailField.optional(),
    user_tag: TagField.optional(),
    code: CodeField,
    new_password: NewPassword,
  })
  .strict()
  .openapi('PasswordResetBody', {
    description:
      'The account as in the request (`email` or `user_tag`, or both; 400 missing_field with neither), ' +
      'the code and the new password.',
    allOf: [ACCOUNT_NAMED],
  });
export type PasswordResetInput = z.infer<typeof PasswordResetInput>;

/** Names one of the accounts that verified the same email (otherwise 409 ambiguous_email). */
const WhichAccountField = TagField.optional().openapi({
  description:
    'Only needed when several accounts have verified `email` (409 `ambiguous_email`): your tag, with or ' +
    'without a leading @. An account that has not verified `email` gets the answer of an unknown one.',
});

export const EmailCodeRequestInput = z
  .object({ email: EmailField, user_tag: WhichAccountField })
  .strict()
  .openapi('EmailCodeRequest', { description: 'An email your account has verified.' });
export type EmailCodeRequestInput = z.infer<typeof EmailCodeRequestInput>;

export const EmailCodeLoginInput = z
  .object({ email: EmailField, user_tag: WhichAccountField, code: CodeField, device_id: DeviceId.optional() })
  .strict()
  .openapi('EmailCodeLoginRequest', {
    description: 'The email (and `user_tag`) as in the request, and the code.',
  });
export type EmailCodeLoginInput = z.infer<typeof EmailCodeLoginInput>;

export { TokenResponse } from '../identity/identity.schemas.js';
