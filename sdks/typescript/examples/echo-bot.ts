// Echo bot: answers each message it receives with the same text, to the same audience. Run with
// SKEIN_URL, and SKEIN_USER + SKEIN_PASSWORD or SKEIN_API_KEY: npx tsx sdks/typescript/examples/echo-bot.ts
import { SkeinClient, SkeinSocket } from '../src/index.js';

const { SKEIN_URL = 'http://localhost:8080', SKEIN_USER = '', SKEIN_PASSWORD, SKEIN_API_KEY } = process.env;
const client = new SkeinClient({ baseUrl: SKEIN_URL, apiKey: SKEIN_API_KEY });
if (SKEIN_PASSWORD) await client.login({ user_tag: SKEIN_USER, password: SKEIN_PASSWORD });
const me = await client.me();

const socket = new SkeinSocket({
  baseUrl: SKEIN_URL,
  ...client.auth,
  onNotification: async ({ event }) => {
    if (event.type !== 'sent') return;
    for (const message of event.content.messages) {
      if (message.author.uid !== me.uid) await client.reply(message, `echo: ${message.content}`);
    }
  },
});
await socket.connect();
console.log(`echoing as @${me.user_tag}; Ctrl-C to stop`);
