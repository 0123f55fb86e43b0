// The echo bot behind a webhook endpoint instead of a socket: Skein POSTs each event here; the
// listener checks its signature, answers 200 at once, then runs the handler.
//   SKEIN_TOKEN=$BOT SKEIN_WEBHOOK_SECRET=whsec_… PORT=3000 npx tsx webhook-bot.ts
// Without SKEIN_WEBHOOK_SECRET it still answers endpoint verification; verifying the endpoint
// (POST /v1/auth/contacts/endpoint/request, then /verify, with its public URL) answers the secret.
import { createServer } from 'node:http';
import { SkeinBot } from 'skein-sdk';

const bot = new SkeinBot(); // reads SKEIN_URL, SKEIN_TOKEN or SKEIN_API_KEY, SKEIN_WEBHOOK_SECRET
bot.onMessage((message, ctx) => ctx.reply(`echo: ${message.content}`));
const server = createServer(bot.webhook()).listen(Number(process.env.PORT ?? 3000));
process.once('SIGTERM', () => server.close(() => void bot.stop()));
