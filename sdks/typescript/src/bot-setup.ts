// What `skein-sdk bot create <tag>` does: signs in as a person, finds the bot of that tag among the
// accounts the person manages or creates it, makes the bot an API key (through a delegated session
// of the bot, POST /v1/managed/auth/delegate then POST /v1/auth/keys/self), proves the key by using
// it, and writes SKEIN_URL, SKEIN_API_KEY and SKEIN_CURSOR_FILE to a `.env` that SkeinBot (and the
// Python SDK's Bot.from_env) read. Run again, it finds the bot and keeps a key of it already in the
// file that still works, so it is safe to repeat. Each way it can fail says what to do instead.
import { readDotEnv, updateDotEnv } from './dotenv.js';
import { SkeinClient, SkeinError, type UserOutput } from './client.js';

export interface BotSetupOptions {
  /** The service, e.g. http://localhost:8080. */
  url: string;
  /** Who signs in: a user tag, or an email. */
  user: string;
  password: string;
  /** The bot's tag. */
  tag: string;
  displayName?: string | undefined;
  /** The file to write. Default `.env`. */
  envFile?: string | undefined;
  fetch?: typeof fetch | undefined;
}

export interface BotSetupResult {
  uid: string;
  tag: string;
  /** Whether this run created the bot (else it was one of yours already). */
  created: boolean;
  /** Whether this run made a new key (else the one in the file still worked). */
  newKey: boolean;
  envFile: string;
}

/** A failure of the set-up, with what to do about it; the CLI prints the message and exits 1. */
export class BotSetupError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'BotSetupError';
  }
}

export async function setUpBot(options: BotSetupOptions): Promise<BotSetupResult> {
  const envFile = options.envFile ?? '.env';
  const person = new SkeinClient({ baseUrl: options.url, fetch: options.fetch });
  await call(options.url, () =>
    person.login(
      options.user.includes('@')
        ? { email: options.user, password: options.password }
        : { user_tag: options.user, password: options.password },
    ),
  ).catch((error: unknown) => {
    if (error instanceof SkeinError && error.status === 401) {
      throw new BotSetupError(
        `Skein at ${options.url} refused the sign-in of "${options.user}": wrong user or password ` +
          '(SKEIN_USER and SKEIN_PASSWORD are yours, the person who will manage the bot).',
        'invalid_credentials',
      );
    }
    throw error;
  });
  try {
    const { bot, created } = await findOrCreate(person, options);
    if (!bot.has_api_access) throw noApiAccess(options.tag, options.user);
    const kept = await keyInFile(envFile, options.url, bot.uid, options.fetch);
    if (!kept) {
      const key = await makeKey(person, bot, options);
      updateDotEnv(envFile, {
        SKEIN_URL: options.url,
        SKEIN_API_KEY: key,
        SKEIN_CURSOR_FILE: `${bot.user_tag}.cursor`,
      });
    }
    return { uid: bot.uid, tag: bot.user_tag, created, newKey: !kept, envFile };
  } finally {
    // The person's session was only for this: end it (the bot's key lives on).
    await person.request('POST', '/v1/auth/logout').catch(() => undefined);
  }
}

/** The bot of that tag among the accounts the person manages, or a new one. */
async function findOrCreate(
  person: SkeinClient,
  options: BotSetupOptions,
): Promise<{ bot: UserOutput; created: boolean }> {
  const mine = async () =>
    (
      await call(options.url, () => person.request<{ users: UserOutput[] }>('GET', '/v1/managed/users'))
    ).users.find((user) => user.user_tag.toLowerCase() === options.tag.toLowerCase());
  const existing = await mine();
  if (existing) {
    if (!existing.is_bot) {
      throw new BotSetupError(
        `${existing.user_tag} is an account you manage, but not a bot; choose another tag, or make it a ` +
          `bot: PATCH /v1/managed/users/${existing.uid} {"is_bot": true}.`,
        'not_a_bot',
      );
    }
    return { bot: existing, created: false };
  }
  try {
    const bot = await call(options.url, () =>
      person.request<UserOutput>('POST', '/v1/managed/users', {
        user_tag: options.tag,
        is_bot: true,
        ...(options.displayName ? { display_name: options.displayName } : {}),
      }),
    );
    return { bot, created: true };
  } catch (error) {
    if (!(error instanceof SkeinError)) throw error;
    if (error.code === 'user_tag_taken') {
      // Two runs at once may both have tried: if it is ours now, use it.
      const raced = await mine();
      if (raced?.is_bot) return { bot: raced, created: false };
      throw new BotSetupError(
        `The tag "${options.tag}" belongs to an account you do not manage; choose another tag for your bot.`,
        'user_tag_taken',
      );
    }
    if (error.code === 'insufficient_scope') {
      throw new BotSetupError(
        `${options.user} may not create bots yet (messages.write is missing): ${detailOf(error)} ` +
          '(README, Quickstart: verify an email, or let an administrator start Skein with ' +
          'SKEIN_ADMIN_TAG for you).',
        'insufficient_scope',
      );
    }
    if (error.code === 'managed_user_forbidden') {
      throw new BotSetupError(
        `${options.user} is itself a managed account; sign in as the person who manages it.`,
        'managed_user_forbidden',
      );
    }
    throw new BotSetupError(`Skein would not create the bot: ${error.message}`, error.code);
  }
}

/** Whether the file already holds a key that signs this bot in on this service. */
async function keyInFile(
  envFile: string,
  url: string,
  uid: string,
  fetchImpl: typeof fetch | undefined,
): Promise<boolean> {
  const current = readDotEnv(envFile);
  if (!current.SKEIN_API_KEY || current.SKEIN_URL !== url) return false;
  try {
    const me = await new SkeinClient({ baseUrl: url, apiKey: current.SKEIN_API_KEY, fetch: fetchImpl }).me();
    return me.uid === uid;
  } catch {
    return false;
  }
}

/** A new API key of the bot, proven by one call made with it. */
async function makeKey(person: SkeinClient, bot: UserOutput, options: BotSetupOptions): Promise<string> {
  const delegated = await call(options.url, () =>
    person.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', { managed_uid: bot.uid }),
  );
  const asBot = new SkeinClient({
    baseUrl: options.url,
    token: delegated.access_token,
    fetch: options.fetch,
  });
  const made = await call(options.url, () =>
    asBot.request<{ key_id: string; key: string }>('POST', '/v1/auth/keys/self', {
      label: `skein-sdk bot create (${new Date().toISOString().slice(0, 10)})`,
    }),
  );
  try {
    await new SkeinClient({ baseUrl: options.url, apiKey: made.key, fetch: options.fetch }).me();
  } catch (error) {
    // Skein mints keys for accounts without API access, which then cannot use them: take it back.
    await asBot.request('DELETE', `/v1/auth/keys/${encodeURIComponent(made.key_id)}`).catch(() => undefined);
    if (error instanceof SkeinError && error.code === 'api_access_required') {
      throw noApiAccess(options.tag, options.user);
    }
    throw error;
  }
  return made.key;
}

function noApiAccess(tag: string, user: string): BotSetupError {
  return new BotSetupError(
    `${tag} has no API access, so Skein would refuse its API key (403 api_access_required). An ` +
      `administrator grants it to you and your bots on the server: \`npm run admin -- api-access ${user} on\` ` +
      '(or starts Skein with SKEIN_DEFAULT_API_ACCESS=true for every new account); then run this again.',
    'api_access_required',
  );
}

/** Runs one request; a service that does not answer becomes a message that says so. */
async function call<T>(url: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof TypeError) {
      throw new BotSetupError(
        `Cannot reach Skein at ${url} (${causeOf(error)}): is it running (\`npm start\` in its folder)? ` +
          'Set SKEIN_URL or pass --url when it runs elsewhere.',
        'unreachable',
      );
    }
    throw error;
  }
}

function detailOf(error: SkeinError): string {
  return typeof error.detail === 'string' ? error.detail : JSON.stringify(error.detail);
}

function causeOf(error: TypeError): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
