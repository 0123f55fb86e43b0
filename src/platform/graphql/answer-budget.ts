// The answer budget. Lists of objects nested in each other multiply the answer: on a thread of
// 10 000 messages `message { thread { thread { id } } }` is 10^8 objects, two list levels deep, so
// no limit on the query's text (depth, cost, list nesting) can tell it from `message { thread { id } }`
// on a short thread. The real sizes are only known while executing, so every list of objects a
// resolver returns is counted, per operation; once the count passes the budget, the remaining list
// fields fail at once without reading anything, and the response becomes one 400 answer_too_large
// error instead of a partial answer. Subscriptions are not counted: their payloads are notification
// events, whose lists are bounded. A mutation over budget has still done its work (the answer is
// built after it commits); only its answer is refused (a post repeated with the same
// idempotency_key and a smaller selection reads its stored result).
//
// Sibling fields of a list run concurrently, so counting after a resolver returns cannot stop the
// siblings that already started. A field that would build the same large list for every item of an
// outer list (Message.thread) spends the budget itself, with spendAnswer, before it builds the list.
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { ApolloServerPlugin } from '@apollo/server';
import {
  OperationTypeNode,
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  type GraphQLSchema,
} from 'graphql';
import { AppError } from '../errors.js';
import { appErrorShape } from './graphql-errors.js';
import type { GraphQLContext } from './graphql-context.js';

/** Objects in lists one operation may answer (a 10 000-message thread fits, with room to spare). */
export const MAX_ANSWER_OBJECTS = 50_000;

/** What one operation has answered so far; made fresh for every request's context. */
export interface AnswerBudget {
  objects: number;
  exceeded: boolean;
}

export function newAnswerBudget(): AnswerBudget {
  return { objects: 0, exceeded: false };
}

function answerTooLarge(): AppError {
  return new AppError(
    'answer_too_large',
    `The answer would hold more than ${MAX_ANSWER_OBJECTS} objects in lists; ask for less (fewer nested lists, smaller pages).`,
  );
}

/** Fields whose resolvers call spendAnswer before building their list. */
const SPENT_BY_RESOLVER = new Set(['Message.thread']);

/**
 * Counts `objects` about to be answered; throws answer_too_large (and marks the operation) once
 * the operation is over budget. For a resolver of SPENT_BY_RESOLVER, before it builds its list.
 */
export function spendAnswer(context: GraphQLContext, objects: number): void {
  const budget = context.answer;
  if (budget.exceeded) throw answerTooLarge();
  budget.objects += objects;
  if (budget.objects > MAX_ANSWER_OBJECTS) {
    budget.exceeded = true;
    throw answerTooLarge();
  }
}

/** Wraps the resolver of every other field that returns a list of objects with the count. */
export function withAnswerBudget(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const type = getNullableType(field.type);
      if (!isListType(type) || !isCompositeType(getNamedType(type))) return field;
      if (SPENT_BY_RESOLVER.has(`${typeName}.${fieldName}`)) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      return {
        ...field,
        resolve: async (source, args, context: GraphQLContext, info) => {
          if (info.operation.operation === OperationTypeNode.SUBSCRIPTION)
            return resolve(source, args, context, info);
          if (context.answer.exceeded) throw answerTooLarge();
          const result: unknown = await resolve(source, args, context, info);
          if (Array.isArray(result)) spendAnswer(context, result.length);
          return result;
        },
      };
    },
  });
}

/** Replaces the (partial, error-strewn) response of an operation over budget with one error. */
export function answerBudgetPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    requestDidStart: () =>
      Promise.resolve({
        willSendResponse: ({ contextValue, response }) => {
          if (!contextValue.answer.exceeded) return Promise.resolve();
          const shape = appErrorShape(answerTooLarge())!;
          response.http.status = shape.extensions.status;
          response.body = { kind: 'single', singleResult: { errors: [shape] } };
          return Promise.resolve();
        },
      }),
  };
}
