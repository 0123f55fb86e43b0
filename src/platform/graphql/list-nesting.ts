// A validation rule: a query may nest list fields (thread, replies, members, ...) at most `max`
// deep, following fragment spreads. graphql-armor's cost limit counts each field once whatever the
// size of the lists around it, so without this rule `thread { thread { thread { thread { id } } } }`
// multiplies the answer by the thread size at every level.
import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';

export function maxListNesting(max: number): ValidationRule {
  return (context) => {
    const schema = context.getSchema();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

    /** The deepest list nesting below a selection set (fragments followed once per path). */
    const deepest = (set: SelectionSetNode, type: GraphQLCompositeType, visiting: Set<string>): number => {
      let found = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          if (!isObjectType(type) && !isInterfaceType(type)) continue;
          const field = type.getFields()[selection.name.value];
          if (!field || !selection.selectionSet) continue;
          const inner = getNamedType(field.type);
          const list = isListType(getNullableType(field.type)) ? 1 : 0;
          if (isObjectType(inner) || isInterfaceType(inner))
            found = Math.max(found, list + deepest(selection.selectionSet, inner, visiting));
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const condition = selection.typeCondition
            ? (schema.getType(selection.typeCondition.name.value) as GraphQLCompositeType | undefined)
            : type;
          if (condition) found = Math.max(found, deepest(selection.selectionSet, condition, visiting));
        } else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (!fragment || visiting.has(name)) continue;
          const condition = schema.getType(fragment.typeCondition.name.value) as
            GraphQLCompositeType | undefined;
          if (!condition) continue;
          found = Math.max(found, deepest(fragment.selectionSet, condition, new Set([...visiting, name])));
        }
      }
      return found;
    };

    return {
      OperationDefinition(operation) {
        const root =
          operation.operation === OperationTypeNode.QUERY
            ? schema.getQueryType()
            : operation.operation === OperationTypeNode.MUTATION
              ? schema.getMutationType()
              : schema.getSubscriptionType();
        if (!root) return;
        const depth = deepest(operation.selectionSet, root, new Set());
        if (depth > max)
          context.reportError(
            new GraphQLError(
              `Lists nested ${depth} deep; at most ${max} are allowed (each nested list multiplies the answer).`,
              { nodes: [operation] },
            ),
          );
      },
    };
  };
}
