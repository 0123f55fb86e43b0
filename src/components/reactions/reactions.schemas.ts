// Shapes of the reaction operations: validation and OpenAPI, shared by REST and GraphQL.
import { z } from '../../platform/openapi.js';
import { MessageId, ReactionCount, pageQuery } from '../messages/messages.schemas.js';
import { UserOutput } from '../users/users.schemas.js';
import { REACTION_RULE, canonicalReaction } from './reaction-rules.js';

/** One emoji, answered in its stored spelling (reaction-rules.ts); anything else is a 422. */
export const Reaction = z
  .string()
  .transform((text, ctx) => {
    const reaction = canonicalReaction(text);
    if (reaction === null) {
      ctx.addIssue({ code: 'custom', message: `must be ${REACTION_RULE}` });
      return z.NEVER;
    }
    return reaction;
  })
  // The transform hides the rule from zod-to-openapi; this states it.
  .openapi({
    type: 'string',
    minLength: 1,
    example: '👍',
    description:
      `${REACTION_RULE[0]!.toUpperCase()}${REACTION_RULE.slice(1)}; percent-encoded in a path. The same emoji ` +
      'with or without the emoji variation selector (U+FE0F) is one reaction, answered in one spelling.',
  });

export const ReactionParams = z.object({ message_id: MessageId, reaction: Reaction });

export const ReactionsQuery = z.object({
  reaction: Reaction.optional(),
  ...pageQuery(20),
});
export type ReactionsQuery = z.infer<typeof ReactionsQuery>;

export const ReactionState = z
  .object({
    message_id: z.string(),
    reaction: z.string(),
    me: z.boolean().openapi({ description: 'Whether you now hold this reaction on the message.' }),
    reactions: z
      .array(ReactionCount)
      .openapi({ description: "The message's reactions, as in MessageOutput." }),
  })
  .openapi('ReactionState');
export type ReactionState = z.infer<typeof ReactionState>;

export const ReactionReactors = z
  .object({
    reaction: z.string(),
    count: z.number().int(),
    me: z.boolean(),
    users: z.array(UserOutput).openapi({ description: 'One page of who reacted with it, earliest first.' }),
    has_more: z.boolean(),
  })
  .openapi('ReactionReactors');

export const ReactionList = z
  .object({
    message_id: z.string(),
    reactions: z.array(ReactionReactors),
    skip: z.number().int(),
    limit: z.number().int(),
  })
  .openapi('ReactionList');
export type ReactionList = z.infer<typeof ReactionList>;
