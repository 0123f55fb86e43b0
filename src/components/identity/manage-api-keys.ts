// The caller's own API keys: create (the secret is shown once), list, revoke. A key can never be
// broader than the credential that creates it, so a narrowed worker token cannot mint a wider key.
import type { Caller } from '../../platform/auth/caller.js';
import { intersectScopes, parseScopeList, type Scope } from '../../platform/auth/scopes.js';
import { formatApiKey, newSecret, sha256Hex } from '../../platform/auth/secrets.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { withFreshId } from '../../platform/neo4j/unique-ids.js';
import * as repo from './identity-repository.js';
import type { KeyCreated, KeyOutput } from './identity.schemas.js';

const scopeText = (scopes: Scope[] | null) => (scopes === null ? null : scopes.join(' '));

export async function createApiKey(
  ctx: AppContext,
  caller: Caller,
  input: { label?: string | undefined; scopes_cap?: string | undefined; expires_at?: string | undefined },
): Promise<KeyCreated> {
  const asked = input.scopes_cap === undefined ? null : parseScopeList(input.scopes_cap).scopes;
  const cap = asked === null && caller.ceiling === null ? null : intersectScopes(asked, caller.ceiling);
  const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at).toISOString();
  // The key embeds its id, so a clash on key_id makes a whole new key, not just a new id.
  const { keyId, key } = await withFreshId('key_id', async (keyId) => {
    const key = formatApiKey(keyId, newSecret());
    await repo.createApiKey(ctx.db, {
      uid: caller.uid,
      key_id: keyId,
      hash: sha256Hex(key),
      prefix: key.slice(0, 14),
      label: input.label ?? null,
      scopes_cap: cap,
      expires_at: expiresAt,
    });
    return { keyId, key };
  });
  // Its first request may reach another instance, on a Neo4j cluster member that lags this write.
  await ctx.db.causalBookmarks?.adopt({ keyId });
  return {
    key_id: keyId,
    key,
    label: input.label ?? null,
    scopes_cap: scopeText(cap),
    expires_at: expiresAt,
  };
}

export async function listApiKeys(ctx: AppContext, caller: Caller): Promise<{ keys: KeyOutput[] }> {
  const keys = await repo.listApiKeys(ctx.db, caller.uid);
  return {
    keys: keys.map((key) => ({
      key_id: key.key_id,
      label: key.label,
      prefix: key.prefix,
      scopes_cap: scopeText(key.scopes_cap),
      created_at: key.created_at,
      expires_at: key.expires_at,
      last_used_at: key.last_used_at,
      revoked: key.revoked_at !== null,
    })),
  };
}

export async function revokeApiKey(
  ctx: AppContext,
  caller: Caller,
  keyId: string,
): Promise<{ key_id: string; revoked: true }> {
  if (!(await repo.revokeApiKey(ctx.db, caller.uid, keyId))) {
    throw new AppError('key_not_found', 'No such API key.');
  }
  return { key_id: keyId, revoked: true };
}
