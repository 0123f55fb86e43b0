// Short random ids (8 hex) are unique by a Neo4j constraint, not by construction, so a create may
// collide; these helpers tell a collision apart and retry the create with a fresh id.
import { newShortId } from '../auth/secrets.js';

/** Which unique property a failed write collided on, if that is why it failed. */
export function constraintClash(error: unknown): string | null {
  const e = error as { code?: string; message?: string };
  if (e.code !== 'Neo.ClientError.Schema.ConstraintValidationFailed') return null;
  return (
    /property `([^`]+)`/.exec(e.message ?? '')?.[1] ?? /\(([a-z_]+)\)/.exec(e.message ?? '')?.[1] ?? 'unknown'
  );
}

/** Runs `create` with a fresh id, again (a few times) while it collides on `property`. */
export async function withFreshId<T>(property: string, create: (id: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await create(newShortId());
    } catch (error) {
      if (constraintClash(error) === property && attempt < 5) continue;
      throw error;
    }
  }
}
