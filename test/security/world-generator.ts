// Random worlds for the visibility model test: a few writers, one managed bot (managed by user 0),
// 0–2 channels with random members, and a short random sequence of actions. Everything that names
// a user, a message or a channel is a plain number resolved when the action runs (modulo the
// candidates that exist at that moment), so every plan can run and fast-check shrinks plans freely.
import fc from 'fast-check';

/** How a recipient is written in the request (all four forms of the contract). */
export type RecipientForm = 'tag' | 'at-tag' | 'uid-string' | 'object';

export interface RecipientPlan {
  user: number;
  /** BCC (only with the object form). */
  bcc: boolean;
  notify: boolean;
  form: RecipientForm;
}

export interface PostItemPlan {
  recipients: RecipientPlan[];
  public: boolean;
  /** Picks among the author's channels (a stray post may name another channel). */
  channels: number[];
}

export type ActionPlan =
  | {
      kind: 'post';
      actor: number;
      /** Pick of the parent among the messages the author can see; null for a new thread. */
      parent: number | null;
      /** true: the parent and channels are picked among all (possibly invisible or deleted) ones. */
      stray: boolean;
      /** One item, or a chain (each item after the first replies to the previous one). */
      items: PostItemPlan[];
    }
  | { kind: 'stitch'; actor: number; from: number; to: number; stray: boolean }
  | {
      kind: 'add';
      actor: number;
      messages: number[];
      recipients: RecipientPlan[];
      strategy: 'NONE' | 'ANCESTORS' | 'TREE';
      stray: boolean;
    }
  | { kind: 'public'; actor: number; message: number; value: boolean; stray: boolean }
  | { kind: 'channels'; actor: number; message: number; channels: number[]; stray: boolean }
  | { kind: 'delete'; actor: number; message: number; stray: boolean }
  | { kind: 'ping'; actor: number; message: number; users: number[] }
  | {
      kind: 'branch';
      actor: number;
      message: number;
      /** Picks of children for reply_order (stray: among all messages, children or not). */
      order: number[];
      /** Pick of the default_outgoing child; null clears it. */
      next: number | null;
      stray: boolean;
    };

export interface ChannelPlan {
  creator: number;
  members: number[];
}

export interface WorldPlan {
  /** Registered writers; the bot is user number `writers`. */
  writers: number;
  channels: ChannelPlan[];
  actions: ActionPlan[];
}

export const MAX_WRITERS = 4;
export const MAX_ACTIONS = 15;

const user = fc.nat({ max: MAX_WRITERS });
const pick = fc.nat({ max: 1000 });
// Mostly well-aimed actions, sometimes stray ones (at messages the actor may not see or change),
// whose refusal (and the absence of any write) the test checks too.
const stray = fc.oneof(
  { weight: 3, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);

const recipient: fc.Arbitrary<RecipientPlan> = fc.record({
  user,
  bcc: fc.boolean(),
  notify: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  form: fc.constantFrom<RecipientForm>('tag', 'at-tag', 'uid-string', 'object', 'object'),
});

const postItem: fc.Arbitrary<PostItemPlan> = fc.record({
  recipients: fc.array(recipient, { maxLength: 3 }),
  public: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 3, arbitrary: fc.constant(false) }),
  channels: fc.array(pick, { maxLength: 2 }),
});

const post = fc.record({
  kind: fc.constant('post' as const),
  actor: user,
  parent: fc.option(pick, { freq: 3 }),
  stray,
  items: fc.oneof(
    { weight: 4, arbitrary: fc.array(postItem, { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(postItem, { minLength: 2, maxLength: 3 }) },
  ),
});

const action: fc.Arbitrary<ActionPlan> = fc.oneof(
  { weight: 6, arbitrary: post },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('stitch' as const), actor: user, from: pick, to: pick, stray }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      actor: user,
      messages: fc.array(pick, { minLength: 1, maxLength: 2 }),
      recipients: fc.array(recipient, { minLength: 1, maxLength: 2 }),
      strategy: fc.constantFrom('NONE' as const, 'NONE' as const, 'ANCESTORS' as const, 'TREE' as const),
      stray,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('public' as const),
      actor: user,
      message: pick,
      value: fc.boolean(),
      stray,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('channels' as const),
      actor: user,
      message: pick,
      channels: fc.array(pick, { maxLength: 2 }),
      stray,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), actor: user, message: pick, stray }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('branch' as const),
      actor: user,
      message: pick,
      order: fc.array(pick, { maxLength: 3 }),
      next: fc.option(pick, { freq: 4 }),
      stray,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('ping' as const),
      actor: user,
      message: pick,
      users: fc.array(user, { minLength: 1, maxLength: 2 }),
    }),
  },
);

export const worldPlan: fc.Arbitrary<WorldPlan> = fc.record({
  writers: fc.integer({ min: 2, max: MAX_WRITERS }),
  channels: fc.array(
    fc.record({ creator: user, members: fc.uniqueArray(user, { maxLength: MAX_WRITERS + 1 }) }),
    { maxLength: 2 },
  ),
  // A few posts first, so that the other actions have messages to aim at.
  actions: fc
    .tuple(
      fc.array(post, { minLength: 2, maxLength: 4, size: 'max' }),
      fc.array(action, { maxLength: MAX_ACTIONS - 4, size: 'max' }),
    )
    .map(([first, rest]) => [...first, ...rest]),
});

/** Resolves a pick among candidates (undefined when there are none). */
export function choose<T>(candidates: T[], index: number): T | undefined {
  return candidates.length === 0 ? undefined : candidates[index % candidates.length];
}
