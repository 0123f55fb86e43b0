// POST /v1/channels: a new channel, with the caller as its first admin. Needs `channels.create`.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { announceEvents, membershipEvent, recordEvents } from '../event-log/record-events.js';
import { createChannel as create } from './channels-repository.js';
import type { ChannelCreateInput, ChannelOutput } from './channels.schemas.js';

export async function createChannel(
  ctx: AppContext,
  caller: Caller,
  input: ChannelCreateInput,
): Promise<ChannelOutput> {
  assertScope(caller, 'channels.create');
  const channel = await create(
    ctx.db,
    caller.uid,
    { display_name: input.display_name, description: input.description ?? null },
    // The creator's open sockets start following the new channel.
    (tx, created) => recordEvents(tx, caller.uid, [membershipEvent(caller.uid, created.id, true)]),
  );
  await announceEvents(ctx);
  // Only when the caller's account was deleted while its session still worked.
  if (!channel) throw new AppError('user_not_found', 'No such user.');
  return channel;
}
