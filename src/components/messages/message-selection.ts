// GraphQL's `fields=`: a query names the Message fields it wants, so a resolver that lists or loads
// messages reads the query's selection and hydrates without links (recipients, replies, stitches,
// channels, attachments, saved state, reactions; cypher/messages/hydrate-core.cypher) when no
// selected field needs them. Fragments, aliases and @skip / @include count as graphql-js counts them.
import { collectFields } from '@graphql-tools/utils';
import {
  getNamedType,
  isObjectType,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';
import { LINK_FIELDS, MESSAGE_FIELDS } from './message-fields.js';

/** Message fields of the schema that resolve from the message's links. */
const LINK_DEPENDENT = new Set<string>([
  ...LINK_FIELDS,
  'replies',
  'stitchParents',
  'stitchChildren',
  'channels',
]);

/** Every key of a message that the hydration without links answers. */
const CORE_FIELDS: ReadonlySet<string> = new Set(MESSAGE_FIELDS.filter((name) => !LINK_FIELDS.has(name)));

/** The names of the fields selected under `nodes`, an object of type `type`, by field name. */
function subFields(info: GraphQLResolveInfo, nodes: readonly FieldNode[], type: GraphQLObjectType) {
  const byName = new Map<string, FieldNode[]>();
  for (const node of nodes) {
    if (!node.selectionSet) continue;
    const { fields } = collectFields(
      info.schema,
      info.fragments,
      info.variableValues,
      type,
      node.selectionSet,
    );
    for (const fieldNodes of fields.values())
      for (const fieldNode of fieldNodes)
        byName.set(fieldNode.name.value, [...(byName.get(fieldNode.name.value) ?? []), fieldNode]);
  }
  return byName;
}

/**
 * The names selected on the Message reached from the resolver's field through `path` (for a
 * PaginatedMessages, ['messages']; for a TraversedMessage, ['message']), or the names selected on the
 * resolver's own object when `path` is empty.
 */
export function selectedNames(info: GraphQLResolveInfo, path: readonly string[] = []): Set<string> {
  let nodes: readonly FieldNode[] = info.fieldNodes;
  let type = getNamedType(info.returnType);
  for (const step of path) {
    if (!isObjectType(type)) return new Set();
    nodes = subFields(info, nodes, type).get(step) ?? [];
    const field = type.getFields()[step];
    if (!field) return new Set();
    type = getNamedType(field.type);
  }
  if (!isObjectType(type)) return new Set();
  return new Set(subFields(info, nodes, type).keys());
}

/** Whether the Message selected at `path` needs its links loaded. */
export function selectionNeedsLinks(info: GraphQLResolveInfo, path: readonly string[] = []): boolean {
  return [...selectedNames(info, path)].some((name) => LINK_DEPENDENT.has(name));
}

/**
 * The `fields` a list use case should apply for this GraphQL query, as its REST `fields=` would
 * arrive: every core key when no selected Message field needs links (so the use case skips reading
 * them), else undefined, the whole message.
 */
export function graphqlFieldSelection(
  info: GraphQLResolveInfo,
  path: readonly string[],
): ReadonlySet<string> | undefined {
  return selectionNeedsLinks(info, path) ? undefined : CORE_FIELDS;
}
