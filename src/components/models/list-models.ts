// GET /v1/models: the bots and their versions as an OpenAI-compatible model list, so model-picker
// clients written for that format can address a bot (or one version of it) by id.
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
    data.push({ id: bot.user_tag, object: 'model', created, owned_by });
    for (const version of new Set(bot.versions)) {
      data.push({ id: `${bot.user_tag}${VERSION_SEPARATOR}${version}`, object: 'model', created, owned_by });
    }
  }
  return { object: 'list', data };
}
