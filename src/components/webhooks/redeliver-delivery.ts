// Queues a delivery from the log again, for one more attempt with the same webhook-id (so a receiver
// that deduplicates by it treats it as the same message). Only a delivery that ended without
// arriving (`failed`, `disabled`, `dropped`) can be: a `pending` one is queued already and a
// `delivered` one arrived (409 either way). The endpoint must be on: after a 410 it must be verified
// again first (409), since a redelivery is no proof that the receiver wants deliveries again; and a
// deactivated or deleted bot gets nothing (409 as well).
// The attempt itself is the dispatcher's: it builds the body from the graph as it is then, through
// the one check every attempt makes, so a message deleted or hidden from the user since is not sent
// and the delivery is `dropped`, as the log then shows.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { showDelivery } from './list-deliveries.js';
import { assertMayManageWebhooks } from './webhook-policy.js';
import { queueRedelivery } from './webhooks-repository.js';
import type { DeliveryOutput } from './webhooks.schemas.js';

export async function redeliverDelivery(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  webhookId: string,
): Promise<DeliveryOutput> {
  await assertMayManageWebhooks(ctx, caller, uid);
  const queued = await queueRedelivery(ctx.db, uid, webhookId);
  switch (queued.result) {
    case 'not_found':
      throw new AppError('delivery_not_found', 'The user has no delivery with that webhook_id.');
    case 'not_redeliverable':
      throw new AppError(
        'delivery_not_redeliverable',
        queued.state === 'pending'
          ? 'The delivery is pending: its next attempt is queued already.'
          : 'The delivery was delivered; only failed, disabled or dropped deliveries are sent again.',
      );
    case 'in_progress':
      throw new AppError(
        'delivery_not_redeliverable',
        'An attempt of this delivery is in progress; ask again once the log shows its result.',
      );
    case 'endpoint_disabled':
      throw new AppError(
        'endpoint_disabled',
        'The user has no endpoint that is verified and turned on (verify it again first), or the account ' +
          'is deactivated.',
      );
    case 'queued':
      // Due at once: this instance's dispatcher claims it now (any other's at its next poll).
      ctx.webhookWork.notify();
      return showDelivery(ctx, uid, queued.delivery);
  }
}
