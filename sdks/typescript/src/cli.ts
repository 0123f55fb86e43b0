#!/usr/bin/env node
// `npx skein-sdk bot create <tag>`: the on-ramp's second command. It signs in as you (SKEIN_USER and
// SKEIN_PASSWORD, else it asks on the terminal), creates the bot or finds the one you already
// manage, makes it an API key and writes SKEIN_URL, SKEIN_API_KEY and SKEIN_CURSOR_FILE to ./.env,
// which the example bots read (bot-setup.ts says how). Exit codes: 0 done, 1 refused, 2 bad usage.
import { stdin, stdout } from 'node:process';
import { createInterface } from 'node:readline/promises';
import { BotSetupError, setUpBot } from './bot-setup.js';
import { readDotEnv } from './dotenv.js';

const USAGE = `Usage: skein-sdk bot create <bot-tag> [--url <skein-url>] [--name <display name>] [--env-file <file>]

Signs in as you, creates the bot (or finds the one of yours with that tag), makes it an API key and
writes SKEIN_URL, SKEIN_API_KEY and SKEIN_CURSOR_FILE to .env (the example bots read it). Safe to run
again: it keeps a key in the file that still works.

  SKEIN_USER, SKEIN_PASSWORD   who you are (asked on the terminal when unset)
  SKEIN_URL                    the service (default: .env's, else http://localhost:8080)
`;

async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
    stdout.write(USAGE);
    return group === undefined ? 2 : 0;
  }
  if (group !== 'bot' || command !== 'create') {
    process.stderr.write(`Unknown command: ${argv.join(' ')}\n\n${USAGE}`);
    return 2;
  }
  const { positional, flags } = parse(rest);
  const tag = positional[0];
  if (!tag || positional.length > 1) {
    process.stderr.write(USAGE);
    return 2;
  }
  const envFile = flags.get('env-file') ?? '.env';
  const url = (
    flags.get('url') ??
    process.env.SKEIN_URL ??
    readDotEnv(envFile).SKEIN_URL ??
    'http://localhost:8080'
  ).replace(/\/+$/, '');
  const user = process.env.SKEIN_USER || (await ask('Your Skein user tag (or email): '));
  const password = process.env.SKEIN_PASSWORD || (await ask(`Password of ${user}: `, true));
  if (!user || !password) {
    process.stderr.write('Set SKEIN_USER and SKEIN_PASSWORD (you, the person who manages the bot).\n');
    return 2;
  }
  try {
    const result = await setUpBot({ url, user, password, tag, displayName: flags.get('name'), envFile });
    const bot = `${result.tag} (uid ${result.uid})`;
    stdout.write(`${result.created ? 'Created the bot' : 'Found your bot'} ${bot} on ${url}.\n`);
    stdout.write(
      result.newKey
        ? `Made it an API key and wrote SKEIN_URL, SKEIN_API_KEY and SKEIN_CURSOR_FILE to ${result.envFile}.\n`
        : `Its API key in ${result.envFile} still works; kept it.\n`,
    );
    stdout.write('Run the example bot: npx tsx node_modules/skein-sdk/examples/echo-bot.ts\n');
    return 0;
  } catch (error) {
    if (error instanceof BotSetupError) {
      process.stderr.write(`skein-sdk: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function parse(args: string[]): { positional: string[]; flags: Map<string, string> } {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const flag = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!flag) positional.push(arg);
    else flags.set(flag[1]!, flag[2] ?? args[(i += 1)] ?? '');
  }
  return { positional, flags };
}

/** Asks on the terminal; a secret is not echoed. Without a terminal there is nobody to ask. */
async function ask(question: string, secret = false): Promise<string> {
  if (!stdin.isTTY) return '';
  const rl = createInterface({ input: stdin, output: stdout, terminal: true });
  if (secret) {
    // Echo nothing of what is typed after the question.
    const write = stdout.write.bind(stdout);
    let asked = false;
    (rl as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text: string) => {
      if (!asked) write(text);
      asked = true;
    };
  }
  try {
    return (await rl.question(question)).trim();
  } finally {
    if (secret) stdout.write('\n');
    rl.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(`skein-sdk: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
