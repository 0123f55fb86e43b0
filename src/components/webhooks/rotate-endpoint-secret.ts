// A new signing secret for a user's webhook endpoint, shown once, with an overlap in which the one it
// replaces still signs: every delivery sent meanwhile carries both signatures (Standard Webhooks'
// rotation), so a receiver can switch to the new secret at its own pace; afterwards only the new
// one signs. The secret is stored as the endpoint's current one always was (webhooks/rotate-secret.cypher).
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { newWebhookSecret } from '../contacts/verify-contact.js';
import { assertMayManageWebhooks } from './webhook-policy.js';
import { rotateEndpointSecret as storeRotation } from './webhooks-repository.js';
import type { RotateSecretBody, RotatedSecret } from './webhooks.schemas.js';

export async function rotateEndpointSecret(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: RotateSecretBody,
): Promise<RotatedSecret> {
  await assertMayManageWebhooks(ctx, caller, uid);
  const secret = newWebhookSecret();
  const rotated = await storeRotation(ctx.db, uid, secret, input.overlap_seconds);
  if (rotated.result === 'no_endpoint') {
    throw new AppError('endpoint_not_found', 'The user has no verified endpoint.');
  }
  if (rotated.result === 'disabled') {
    throw new AppError(
      'endpoint_disabled',
      'The endpoint was turned off by a 410 answer; verifying it again gives it a new secret.',
    );
  }
  // Never the secret: who rotated, and until when the old one signs.
  ctx.log.info(
    { uid, by: caller.uid, overlap_seconds: input.overlap_seconds },
    'webhook signing secret rotated',
  );
  return { secret, previous_expires_at: rotated.previous_expires_at };
}
