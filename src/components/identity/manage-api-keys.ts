// The caller's own API keys: create (the secret is shown once), list, revoke. A key can never be
// broader than the credential that creates it, so a narrowed worker token cannot mint a wider key,
// nor outlive the key behind that credential (docs/decisions/024): a key made with a key (an
// x-api-key request, or a session exchanged from a key) expires no later than that key and dies when
// it is revoked; a key made through a delegation (a bot's key, spec Authentication 7) expires no
// later than the manager's key behind the delegation, if there is one, but is the bot's own after.
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
  const minter = await keyBehind(ctx, caller);
  const expiresAt = earliest(
    input.expires_at === undefined ? null : new Date(input.expires_at).toISOString(),
    minter.expiresAt,
  );
  // The key embeds its id, so a clash on key_id makes a whole new key, not just a new id.
  const { keyId, key } = await withFreshId('key_id', async (keyId) => {
    const key = formatApiKey(keyId, newSecret());
    const created = await repo.createApiKey(ctx.db, {
      uid: caller.uid,
      key_id: keyId,
      hash: sha256Hex(key),
      prefix: key.slice(0, 14),
      label: input.label ?? null,
      scopes_cap: cap,
      expires_at: expiresAt,
      parent_key_id: minter.parentKeyId,
    });
    if (!created) throw invalidKey();
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

const invalidKey = () => new AppError('invalid_api_key', 'The API key is invalid, revoked or expired.');
const invalidSession = () => new AppError('invalid_session', 'The session is invalid or has expired.');

/** The earlier of two expiries; null is never. */
function earliest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) <= Date.parse(b) ? a : b;
}

interface Minter {
  /** The caller's own key the new key is made with (it dies with it), or null. */
  parentKeyId: string | null;
  /** The latest the new key may expire (null: no bound), as that key's, or the manager's key's. */
  expiresAt: string | null;
}

/**
 * The API key behind the caller's credential, which a new key may not outlive. The key of an
 * x-api-key request, or of a session exchanged from a key, is the caller's own: the new key is its
 * child. A delegated or act-as session answers for the manager's credential: when that is a key (or
 * a session exchanged from one), the managed user's new key expires no later, and is not tied to it
 * otherwise (docs/decisions/024). A session signed in any other way bounds nothing: it is how a
 * person makes a lasting key.
 */
async function keyBehind(ctx: AppContext, caller: Caller): Promise<Minter> {
  if (caller.keyId !== null) {
    const found = await repo.findApiKey(ctx.db, caller.keyId);
    if (!found) throw invalidKey();
    return { parentKeyId: caller.keyId, expiresAt: found.key.expires_at };
  }
  if (caller.actingManagerUid !== null && caller.sessionId !== null) {
    const found = await repo.findSession(ctx.db, caller.sessionId);
    if (!found) throw invalidSession();
    const parent = found.parent;
    const managerKey = parent?.kind === 'key' ? parent : (parent?.key ?? null);
    return { parentKeyId: null, expiresAt: managerKey?.expires_at ?? null };
  }
  return { parentKeyId: null, expiresAt: null };
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
