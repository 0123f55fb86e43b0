// The caller's credential while a completion is open (decision 033), kept current as live sockets
// keep theirs (live-credential.ts): a key revoked, a session ended, a password changed or a scope
// withdrawn while the caller waits for the bot, or reads its streamed answer, stops the answer at
// the next piece. Every such write notes the accounts it concerns in the session cache; a
// credential judged at the cache's generation g is current while no change concerning its account
// (or the manager it acts for) was heard after g, and is judged again otherwise. An unrelated write
// costs nothing; a relevant one costs one read per open completion.
// Not caught: a credential that merely expires while the answer streams (no write announces it),
// which the answer outlives by at most its own length.
import type { Caller, Credentials } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { authenticate } from '../identity/sessions.js';

/** What a completion needs, at the request and at every re-check. */
export function assertMayComplete(caller: Caller): void {
  assertScope(caller, 'messages.write');
  assertScope(caller, 'messages.read');
}

export class CompletionCredential {
  private judgedAt: number;

  /** `generation`: the session cache's generation noted before the caller was last judged. */
  constructor(
    private readonly ctx: AppContext,
    private readonly credentials: Credentials,
    private readonly caller: Caller,
    generation: number,
  ) {
    this.judgedAt = generation;
  }

  /** Resolves when the credential may still be given the answer; throws the refusal otherwise. */
  async assertCurrent(): Promise<void> {
    const { uid, actingManagerUid } = this.caller;
    while (this.ctx.sessions.changedSince(this.judgedAt, [uid, actingManagerUid])) {
      const generation = this.ctx.sessions.generation;
      const caller = await authenticate(this.ctx, this.credentials);
      if (!caller || caller.uid !== uid) {
        throw new AppError(
          'not_authenticated',
          'Your session or key was revoked or has expired while the answer was under way.',
        );
      }
      assertMayComplete(caller);
      this.judgedAt = generation;
    }
  }
}
