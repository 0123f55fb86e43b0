// STUB (to be written): webhook deliveries in Neo4j.
import type { Tx } from '../../platform/neo4j/database.js';
import type { StoredNotification } from '../events/notification-event.js';

/**
 * Called by the outbox inside the transaction that records notifications: creates one pending
 * Delivery for each notification whose user has a verified, enabled endpoint contact.
 */
export async function createDeliveries(_tx: Tx, _notifications: StoredNotification[]): Promise<void> {
  // written by the webhooks work
}
