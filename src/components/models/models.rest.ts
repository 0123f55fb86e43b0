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
      'Every bot you can address (an account with `is_bot` true) and each of its versions, in the OpenAI ' +
      'model-list format `{"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}`, ' +
      "so OpenAI-style clients list them as they are: the official `openai` packages' `models.list()` " +
      "with `base_url` = this service's `/v1` and `api_key` = a Skein session token or API key (both are " +
      'accepted as `Authorization: Bearer`). A bot is one entry with `id` = its user_tag; each version ' +
      'listed in its bot metadata is one more entry with `id` = `<user_tag>:<version>` (":" cannot occur ' +
      "in a tag, so ids never clash), right after its bot, in the bot's order of versions. `created` is " +
      "the bot account's creation time in whole unix seconds (versions share it); `owned_by` is the " +
      "user_tag of the bot's first manager (the oldest manages edge), or the bot's own tag when nobody " +
      "manages it. Skein's own fields come beside these on every entry: `uid`, `user_tag`, " +
      "`display_name`, `version` (null on the bot's own entry), `modalities` and `integrations`. Bots " +
      'are ordered by user_tag, case-insensitively. Left out, as user search leaves them out: deactivated ' +
      'and deleted bots, and banned ones (a bot whose grant holds no `messages.read`, or none of whose ' +
      'managers holds it). The list is not paginated. (The interface specification asks only for "a ' +
      'format compatible with a common model-listing format"; this is that format.) Needs ' +
      '`messages.read`.',
    auth: 'required',
    response: ModelList,
    errors: { 403: 'messages.read missing.' },
    handler: ({ caller }) => listModels(ctx, caller),
  });
}
