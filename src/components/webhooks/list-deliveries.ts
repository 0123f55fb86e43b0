// The delivery log of a user's webhook endpoint, readable by whoever webhook-policy.ts allows (the
// user and its managers): each body is built now, as the user sees the messages now, so the log shows
// a manager nothing that acting as the bot would not, and nothing deleted or hidden since.
import type { Caller } from '../../platform/auth/caller.js';
import type { AppContext } from '../../platform/context.js';
import { withinBudget } from '../events/event-budget.js';
import { buildClientEvent } from '../events/event-payloads.js';
import type { NotificationEvent } from '../events/notification-event.js';
import { assertMayManageWebhooks } from './webhook-policy.js';
import { listDeliveries as readDeliveries, type DeliveryWithEvent } from './webhooks-repository.js';
import type { DeliveriesQuery, DeliveryOutput, DeliveryPage } from './webhooks.schemas.js';

export async function listDeliveries(
  ctx: AppContext,
  caller: Caller,
  uid: string,
  page: DeliveriesQuery,
): Promise<DeliveryPage> {
  await assertMayManageWebhooks(ctx, caller, uid);
  const { deliveries, has_more } = await readDeliveries(ctx.db, uid, page.skip, page.limit);
  const shown = await Promise.all(deliveries.map((delivery) => showDelivery(ctx, uid, delivery)));
  return { deliveries: shown, skip: page.skip, limit: page.limit, has_more };
}

/** One delivery as the log shows it: its body built now for the user, or null if nothing is left. */
export async function showDelivery(
  ctx: AppContext,
  uid: string,
  { record, event }: DeliveryWithEvent,
): Promise<DeliveryOutput> {
  const built = event ? await buildClientEvent(ctx, uid, event) : null;
  return {
    ...record,
    // Webhook events are only ever of the four spec types; the body as the budget lets it go out.
    event: built && (withinBudget(built, ctx.config.realtime.eventMaxBytes) as NotificationEvent),
  };
}
