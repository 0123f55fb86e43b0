// PATCH /v1/managed/users/{uid}/endpoint: the options of a user's webhook endpoint, for the user
// itself and its managers (webhook-policy.ts). Today one: include_context, whether deliveries carry
// each new message's conversation context (events/message-contexts.ts, decision 028). The option
// lives on the endpoint and outlives verifying it again.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { assertMayManageWebhooks } from './webhook-policy.js';
import { setEndpointOptions as storeOptions } from './webhooks-repository.js';
import type { EndpointOptions, EndpointOptionsBody } from './webhooks.schemas.js';

export async function setEndpointOptions(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  input: EndpointOptionsBody,
): Promise<EndpointOptions> {
  await assertMayManageWebhooks(ctx, caller, uid);
  const stored = await storeOptions(ctx.db, uid, input);
  if (!stored) throw new AppError('endpoint_not_found', 'The user has no verified endpoint.');
  ctx.log.info(
    { uid, by: caller.uid, include_context: stored.include_context },
    'webhook endpoint options set',
  );
  return stored;
}
