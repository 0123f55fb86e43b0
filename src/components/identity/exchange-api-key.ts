// POST /v1/auth/token: trades an API key for a session. Partner access (`has_api_access`) required.
import { parseScopeList } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { mintSession, verifyApiKey, type MintedSession } from './sessions.js';

export interface ExchangeInput {
  apiKey: string | undefined;
  requested_permissions?: string | undefined;
  requested_scopes?: string | undefined;
  device_id?: string | undefined;
}

export async function exchangeApiKey(ctx: AppContext, input: ExchangeInput): Promise<MintedSession> {
  if (!input.apiKey) throw new AppError('missing_api_key', 'Send the API key in the x-api-key header.');
  const failures = ctx.limits.keyFailuresById;
  const keyId = /^sk_([0-9a-f]{8})_/.exec(input.apiKey)?.[1];
  if (keyId) await failures.assertNotBlocked(keyId);
  const key = await verifyApiKey(ctx, input.apiKey, (id) => failures.penalize(id));
  const requestedText = input.requested_permissions ?? input.requested_scopes;
  return mintSession(ctx, {
    uid: key.user.uid,
    grant: key.user.scopes,
    requested: requestedText === undefined ? null : parseScopeList(requestedText).scopes,
    keyId: key.keyId,
    keyCap: key.keyCap,
    deviceId: input.device_id ?? null,
    actingManagerUid: null,
    method: 'api_key',
  });
}
