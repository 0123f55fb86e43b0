// Shapes of the model list, in the OpenAI model-list format (they feed the OpenAPI document): the
// format's four fields, then Skein's own beside them.
import { z } from '../../platform/openapi.js';

export const Model = z
  .object({
    id: z.string().openapi({ description: 'A bot: its user_tag. A bot version: `<user_tag>:<version>`.' }),
    object: z.literal('model'),
    created: z
      .number()
      .int()
      .openapi({ description: 'When the bot account was created, whole unix seconds (versions share it).' }),
    owned_by: z
      .string()
      .openapi({ description: "The tag of the bot's first manager, or the bot's own tag when unmanaged." }),
    uid: z.string().openapi({ description: "Skein's: the bot account's uid (the same on its versions)." }),
    user_tag: z
      .string()
      .openapi({ description: "Skein's: the bot's user_tag, to address it as a recipient." }),
    display_name: z.string().nullable().openapi({ description: "Skein's: the bot's display name." }),
    version: z.string().nullable().openapi({
      description: "Skein's: the version this entry stands for, or null on the bot's own entry.",
    }),
    modalities: z
      .array(z.string())
      .openapi({ description: "Skein's: what the bot accepts and produces (its bot metadata)." }),
    integrations: z
      .array(z.string())
      .openapi({ description: "Skein's: the bot's integrations (its bot metadata)." }),
  })
  .openapi('Model', {
    description:
      'One model of the OpenAI model-list format (`id`, `object`, `created`, `owned_by`, with their types), ' +
      "and Skein's own fields beside them.",
  });
export type Model = z.infer<typeof Model>;

export const ModelList = z
  .object({ object: z.literal('list'), data: z.array(Model) })
  .openapi('ModelList', { description: 'OpenAI-compatible model list.' });
export type ModelList = z.infer<typeof ModelList>;
