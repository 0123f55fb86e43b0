// Echo bot: answers each message addressed to it with the same text, to the same audience, and
// survives restarts of Skein (it reconnects) and of itself (SKEIN_CURSOR_FILE: it resumes there).
//   SKEIN_URL=http://localhost:8080 SKEIN_TOKEN=$BOT SKEIN_CURSOR_FILE=echo-bot.cursor npx tsx echo-bot.ts
// (or SKEIN_API_KEY=sk_… instead of SKEIN_TOKEN). Ctrl-C finishes the replies under way, then stops.
import { SkeinBot } from 'skein-sdk';

const bot = new SkeinBot(); // reads SKEIN_URL, SKEIN_TOKEN or SKEIN_API_KEY, SKEIN_CURSOR_FILE
bot.onMessage((message, ctx) => ctx.reply(`echo: ${message.content}`));
bot.start().catch((error: unknown) => {
  console.error(error); // a refusal (bad token, missing scope): reconnecting would not help
  process.exitCode = 1;
});
