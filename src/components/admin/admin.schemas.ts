import { SCOPES } from '../../platform/auth/scopes.js';
import { z } from '../../platform/openapi.js';

export const AdminUserUpdateInput = z
  .object({
    scopes: z
      .array(z.enum(SCOPES))
      .max(SCOPES.length * 2)
      .optional(),
    has_api_access: z.boolean().optional(),
  })
  .strict()
  .openapi('AdminUserUpdateRequest', {
    description:
      '`scopes` replaces the whole grant and is final: verifying an email or phone later adds nothing (this is how an account is banned). A managed user holds no more than its managers hold.',
  });
