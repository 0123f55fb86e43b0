// Context bot: reads the conversation each message belongs to, as the bot may see it (its starting
// context, the thread from the root down, the message), as the turns a chat model is given.
//   SKEIN_URL=http://localhost:8080 SKEIN_TOKEN=$BOT npx tsx context-bot.ts
import { SkeinBot } from 'skein-sdk';

const bot = new SkeinBot({ includeContext: true }); // each event carries its messages' context
bot.onMessage(async (message, ctx) => {
  const { entries } = await message.context(); // [{role: 'user' | 'assistant', content, author, ...}]
  const turns = entries.map(({ role, content }) => ({ role, content })); // hand these to your model
  await ctx.reply(`${turns.length} message(s) in view; the first: "${turns[0]?.content}"`);
});
bot.start().catch((error: unknown) => {
  console.error(error); // a refusal (bad token, missing scope)
  process.exitCode = 1;
});
