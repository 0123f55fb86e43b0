// Shapes of contact verification and password reset (validation and OpenAPI). Fields are plain
// strings here: a malformed email, phone, URL or code is the spec's 400 (invalid_email, …), which the
// use cases answer, rather than the schema's 422.
import { z } from '../../platform/openapi.js';
import { Password } from '../identity/identity.schemas.js';

const EmailField = z.string().max(320).openapi({ example: 'ada@example.com' });
const PhoneField = z.string().max(40).openapi({
  description: 'E.164, e.g. +14155552671 (spaces and dashes are dropped).',
  example: '+14155552671',
});
const UrlField = z
  .string()
  .max(2048)
  .openapi({ description: 'An http(s) URL without user:password.', example: 'https://bot.example.com/hook' });
const CodeField = z
  .string()
  .max(32)
  .openapi({ description: 'The 6-digit code that was sent.', example: '042917' });
const TagField = z.string().max(64).openapi({ description: 'With or without a leading @.' });

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

export const PasswordResetRequestInput = z
  .object({ email: EmailField.optional(), user_tag: TagField.optional() })
  .strict()
  .openapi('PasswordResetRequestBody', { description: 'Give `email` or `user_tag` (or both).' });
export type PasswordResetRequestInput = z.infer<typeof PasswordResetRequestInput>;

export const PasswordResetInput = z
  .object({
    email: EmailField.optional(),
    user_tag: TagField.optional(),
    code: CodeField,
    new_password: Password,
  })
  .strict()
  .openapi('PasswordResetBody', {
    description: 'The account as in the request (`email` or `user_tag`), the code and the new password.',
  });
export type PasswordResetInput = z.infer<typeof PasswordResetInput>;

export { TokenResponse } from '../identity/identity.schemas.js';
