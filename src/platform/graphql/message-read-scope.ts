// The messages.read guard of the GraphQL schema. A message's content may reach a caller through
// many fields (Query.message, a mutation answering the edited Message, MessageCreateResult.message,
// Message.parent / replies / thread / stitchParents / stitchChildren, lists of pages, notification
// payloads), and each of them used to rely on its own resolver remembering the scope: the nested ones
// did not (security finding #2). So the rule lives here, once, by type: every field whose type is a
// Message or an EventMessage (alone or in a list) is refused with the REST 403 insufficient_scope
// before its resolver runs, when the caller is signed in without messages.read. A field added later
// is covered without anyone having to remember. Anonymous callers pass: the fields open to them
// (public messages, search) apply the anonymous view in their use cases.
//
// A mutation that answers a Message (setTags, setSubject, ...) is therefore refused before it
// writes; a post still runs (its answer is a MessageCreateResult) and only the result's `message`
// is refused, so a write-only token can post and learn `ok` and `index`, never read content back.
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, getNamedType, type GraphQLSchema } from 'graphql';
import { assertScope } from '../auth/scopes.js';
import type { GraphQLContext } from './graphql-context.js';

/** The types that carry message content. */
export const MESSAGE_TYPES: ReadonlySet<string> = new Set(['Message', 'EventMessage']);

export function withMessageReadScope(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field) => {
      if (!MESSAGE_TYPES.has(getNamedType(field.type).name)) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve: (source, args, context: GraphQLContext, info) => {
          if (context.caller) assertScope(context.caller, 'messages.read');
          return resolve(source, args, context, info);
        },
      };
    },
  });
}
