// /v1 models routes:
//   GET /v1/models                            bots and their versions as an OpenAI-compatible model list
import type { AppContext } from '../../platform/context.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { listModels } from './list-models.js';
import { ModelList } from './models.schemas.js';

export function mountModelRoutes(routes: RouteTable, ctx: AppContext): void {
  routes.add({
    method: 'get',
    path: '/v1/models',
    tag: 'models',
    summary: 'List bots as models',
    description:
      'Every bot (an account with `is_bot` true) and each of its versions, in the OpenAI model-list ' +
      'format `{"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}`. A bot ' +
      'is one entry with `id` = its user_tag; each version listed in its bot metadata is one more entry ' +
      'with `id` = `<user_tag>:<version>` (":" cannot occur in a tag, so ids never clash), right after ' +
      "its bot, in the bot's order of versions. `created` is the bot account's creation time in unix " +
      "seconds (versions share it); `owned_by` is the user_tag of the bot's first manager (the oldest " +
      "manages edge), or the bot's own tag when nobody manages it. Bots are ordered by user_tag, " +
      'case-insensitively. Deactivated and deleted bots are left out. The list is not paginated. Needs ' +
      '`messages.read`.',
    auth: 'required',
    response: ModelList,
    errors: { 403: 'messages.read missing.' },
    handler: ({ caller }) => listModels(ctx, caller),
  });
}
