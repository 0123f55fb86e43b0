import { SkeinBot } from 'skein-sdk';

/** Stands in for a model client's streamed answer: a word every 50 ms, until the signal aborts. */
async function* answer(question: string, signal: AbortSignal): AsyncGenerator<string> {
  for (const word of `You asked: "${question}". Here is a long answer, word by word.`.split(' ')) {
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
    yield `${word} `;
  }
}

const bot = new SkeinBot(); // shows "typing" on each message while its handler runs
bot.onMessage(async (message, ctx) => {
  await ctx.setStatus('thinking…');
  await ctx.replyStream((signal) => answer(message.content, signal)); // readers see it grow, may stop it
});
bot.start().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
