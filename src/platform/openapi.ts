// The OpenAPI 3.1 document is generated from the same zod schemas that validate requests: every
// route registers itself here when it is mounted, so the document covers every path that exists.
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export const ErrorBody = z
  .object({
    detail: z.union([
      z.string(),
      z.array(
        z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
      ),
    ]),
    code: z.string(),
  })
  .openapi('Error', {
    description: 'Every error. `detail` is a sentence, or for 422 (`validation_error`) a list of issues.',
  });

export function createOpenApiRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Opaque session token `svc_session_<id>.<secret>`, or an API key `sk_…` (as OpenAI-style clients ' +
      'send theirs; it then counts as that key, exactly as in `x-api-key`).',
  });
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
  });
  registry.registerComponent('securitySchemes', 'cookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'svc_session',
  });
  return registry;
}

export function generateOpenApiDocument(registry: OpenAPIRegistry, serverUrl: string): unknown {
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Skein API',
      version: '1.0.0',
      description:
        'Real-time messaging for people and bots, where messages form a graph. Errors are ' +
        '`{"detail", "code"}`; validation errors answer 422; a path called with a method it does not have ' +
        'answers 405 `method_not_allowed` with an `Allow` header. Authenticate with `Authorization: Bearer`, ' +
        '`x-api-key` or the `svc_session` cookie (Bearer wins; a Bearer `sk_` API key counts as that key). The same operations exist in GraphQL at `/graphql`.',
    },
    servers: [{ url: serverUrl }],
  });
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations as Record<string, { parameters?: unknown[] }>)) {
      for (const parameter of operation.parameters ?? []) dropNullFromParameter(parameter);
    }
  }
  return document;
}

/**
 * zod-to-openapi can read a parameter's schema as nullable (it did for coerced numbers with min(0)),
 * but a query or path value is a string and can never be JSON null: the null only misleads generators.
 */
function dropNullFromParameter(parameter: unknown): void {
  const schema = (parameter as { schema?: { type?: unknown } }).schema;
  if (Array.isArray(schema?.type) && schema.type.includes('null')) {
    const rest = schema.type.filter((type) => type !== 'null');
    schema.type = rest.length === 1 ? rest[0] : rest;
  }
}

/**
 * The alternatives of a rule such as "exactly one of user_tag or uid", for `.openapi({ oneOf })` (or
 * `anyOf` for "at least one"): zod-to-openapi drops refines, so a schema states such a rule itself.
 * Each alternative requires one property and names it (`{}`: any value; the object's own `properties`
 * still apply). Naming it keeps Redocly's no-required-schema-properties-undefined quiet where the object
 * sits inside a union, and makes openapi-typescript type the alternatives as `{user_tag: unknown} | …`.
 */
export function eachRequired(
  ...names: string[]
): { required: string[]; properties: Record<string, Record<string, never>> }[] {
  return names.map((name) => ({ required: [name], properties: { [name]: {} } }));
}

export { z };
