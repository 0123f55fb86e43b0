// GET /v1/models: the bots and their versions as an OpenAI-compatible model list, so model-picker
// clients written for that format (the official `openai` packages' `models.list()`, pointed at
// Skein's /v1 with a Skein token as the API key) can address a bot (or one version of it) by id.
// The four OpenAI fields come first and keep OpenAI's types (`created` whole unix seconds); Skein's
// own fields sit beside them, which those clients keep as extra attributes.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { listBots } from './models-repository.js';
import type { Model, ModelList } from './models.schemas.js';

/** Separates a bot's tag from a version in a model id; tags cannot hold it, so ids never clash. */
export const VERSION_SEPARATOR = ':';

export async function listModels(ctx: AppContext, caller: Caller): Promise<ModelList> {
  assertScope(caller, 'messages.read');
  const bots = await listBots(ctx.db);
  const data: Model[] = [];
  for (const bot of bots) {
    // Versions carry no timestamps of their own: they share the bot's creation time and owner.
    const created = Math.floor(Date.parse(bot.created_at) / 1000);
    const owned_by = bot.manager_tag ?? bot.user_tag;
    const entry = (id: string, version: string | null): Model => ({
      id,
      object: 'model',
      created,
      owned_by,
      uid: bot.uid,
      user_tag: bot.user_tag,
      display_name: bot.display_name,
      version,
      modalities: bot.modalities,
      integrations: bot.integrations,
    });
    data.push(entry(bot.user_tag, null));
    for (const version of new Set(bot.versions)) {
      data.push(entry(`${bot.user_tag}${VERSION_SEPARATOR}${version}`, version));
    }
  }
  return { object: 'list', data };
}
