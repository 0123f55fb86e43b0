// Who may act on a user's webhook endpoint: read its delivery log, rotate its signing secret and
// queue a delivery again. The user itself and its current managers, the people who may act as it
// anyway (act-as, delegate); with `messages.read`, since the log and a redelivery carry the user's
// messages. Anyone else gets the 403 that delegation gives a non-manager, whether or not the uid exists.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { findManagedSubject } from '../identity/identity-repository.js';
import { notManager } from '../users/managed-user-policy.js';

export async function assertMayManageWebhooks(ctx: AppContext, caller: Caller, uid: string): Promise<void> {
  assertScope(caller, 'messages.read');
  if (caller.uid === uid) return;
  if (await findManagedSubject(ctx.db, caller.uid, uid)) return;
  throw notManager();
}
