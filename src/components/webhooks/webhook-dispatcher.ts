// STUB (to be written): sends due webhook deliveries.
import type { AppContext } from '../../platform/context.js';

export interface WebhookDispatcher {
  stop(): Promise<void>;
}

export function startWebhookDispatcher(_ctx: AppContext): WebhookDispatcher {
  return { stop: () => Promise.resolve() };
}
