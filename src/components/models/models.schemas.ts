// Shapes of the model list, in the OpenAI model-list format (they feed the OpenAPI document).
import { z } from '../../platform/openapi.js';

export const Model = z
  .object({
    id: z.string().openapi({ description: 'A bot: its user_tag. A bot version: `<user_tag>:<version>`.' }),
    object: z.literal('model'),
    created: z.number().int().openapi({ description: 'When the bot account was created, unix seconds.' }),
    owned_by: z
      .string()
      .openapi({ description: "The tag of the bot's first manager, or the bot's own tag when unmanaged." }),
  })
  .openapi('Model');
export type Model = z.infer<typeof Model>;

export const ModelList = z
  .object({ object: z.literal('list'), data: z.array(Model) })
  .openapi('ModelList', { description: 'OpenAI-compatible model list.' });
export type ModelList = z.infer<typeof ModelList>;
