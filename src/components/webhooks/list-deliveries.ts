// The delivery log of a user's webhook endpoint. It is readable by the user and by its managers,
// the people who may act as it anyway (act-as, delegate): each body is built now, as the user sees
// the messages now, so the log shows a manager nothing that acting as the bot would not, and nothing
// deleted or hidden since. Anyone else gets the 403 that delegation gives a non-manager, whether or
// not the uid exists.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { buildClientEvent } from '../events/event-payloads.js';
import type { NotificationEvent } from '../events/notification-event.js';
import { findManagedSubject } from '../identity/identity-repository.js';
import { listDeliveries as readDeliveries } from './webhooks-repository.js';
import type { DeliveriesQuery, DeliveryPage } from './webhooks.schemas.js';

export async function listDeliveries(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  page: DeliveriesQuery,
): Promise<DeliveryPage> {
  assertScope(caller, 'messages.read');
  await assertSelfOrManager(ctx, caller, uid);
  const { deliveries, has_more } = await readDeliveries(ctx.db, uid, page.skip, page.limit);
  const shown = await Promise.all(
    deliveries.map(async ({ record, event }) => ({
      ...record,
      // Webhook events are only ever of the four spec types.
      event: event ? ((await buildClientEvent(ctx, uid, event)) as NotificationEvent | null) : null,
    })),
  );
  return { deliveries: shown, skip: page.skip, limit: page.limit, has_more };
}

async function assertSelfOrManager(ctx: AppContext, caller: Caller, uid: string): Promise<void> {
  if (caller.uid === uid) return;
  if (await findManagedSubject(ctx.db, caller.uid, uid)) return;
  throw new AppError('not_manager', 'You do not manage that user.');
}
