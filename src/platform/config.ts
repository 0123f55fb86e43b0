// Configuration comes from the environment only, and is checked once at start-up: a bad value stops
// the process with a message naming the variable, instead of failing later at first use.
import path from 'node:path';
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

/** A comma-separated list of web origins (scheme, host and optional port; no path), or nothing. */
const originList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin.length > 0),
  )
  .pipe(
    z.array(
      z
        .string()
        .regex(
          /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i,
          'each origin must look like https://app.example.com (scheme, host, optional port, no path)',
        )
        .transform((origin) => origin.toLowerCase()),
    ),
  );

const EnvSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  SKEIN_DATA_DIR: z.string().min(1).default('./data'),
  SKEIN_FILES_DIR: z.string().min(1).optional(),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  NEO4J_URI: z
    .string()
    .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\/.+/, 'must be a bolt:// or neo4j:// URI')
    .optional(),
  NEO4J_USER: z.string().min(1).default('neo4j'),
  NEO4J_PASSWORD: z.string().optional(),
  NEO4J_DATABASE: z.string().min(1).optional(),
  SKEIN_NEO4J_PORT: port.default(7687),
  SKEIN_NEO4J_HEAP: z
    .string()
    .regex(/^\d+[mMgG]$/, 'must look like 512m or 1g')
    .default('768m'),
  SKEIN_NEO4J_PAGECACHE: z
    .string()
    .regex(/^\d+[mMgG]$/, 'must look like 256m or 1g')
    .default('256m'),
  SKEIN_NEO4J_NICE: z.coerce.number().int().min(0).max(19).default(10),
  SKEIN_WARMUP_SECONDS: z.coerce.number().int().min(0).max(600).default(10),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  SKEIN_SESSION_TTL_SECONDS: positiveInt.default(30 * 24 * 3600),
  SKEIN_VIEW_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(32),
  SKEIN_POST_WRITERS: z.coerce.number().int().min(1).max(256).default(4),
  SKEIN_RATE_LIMIT_AUTH_PER_MIN: positiveInt.default(60),
  SKEIN_LOGIN_FAILURES_PER_15_MIN: positiveInt.default(10),
  SKEIN_RATE_LIMIT_POSTS_PER_MIN: positiveInt.default(300),
  SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: positiveInt.default(120),
  SKEIN_MAX_DELIVERIES_PER_POST: positiveInt.default(1000),
  SKEIN_MAX_MANAGED_USERS: positiveInt.default(1000),
  SKEIN_BCRYPT_COST: z.coerce.number().int().min(12).max(15).default(12),
  SKEIN_ADMIN_TAG: z.string().optional(),
  SKEIN_ADMIN_PASSWORD: z.string().optional(),
  SKEIN_TRUST_PROXY: booleanFlag.default(false),
  SKEIN_CORS_ORIGINS: originList.default([]),
  SKEIN_WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  SKEIN_DEFAULT_API_ACCESS: booleanFlag.default(false),
  SKEIN_MAX_UPLOAD_BYTES: positiveInt.default(25 * 1024 * 1024),
  SKEIN_MAIL_TRANSPORT: z.enum(['log', 'smtp']).default('log'),
  SKEIN_SMS_TRANSPORT: z.enum(['log', 'twilio']).default('log'),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  SKEIN_MAIL_FROM: z.string().min(3).default('Skein <no-reply@skein.invalid>'),
  // Twilio's identifiers have fixed shapes; checking them at start-up catches a token pasted into the
  // SID variable (or an SID of the wrong kind) before the first code fails to go out.
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-f]{32}$/i, 'must be a Twilio Account SID (AC followed by 32 hex digits)')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  // A number only: short codes and alphanumeric sender IDs are what a Messaging Service is for.
  TWILIO_FROM: z
    .string()
    .regex(/^\+[1-9]\d{1,14}$/, 'must be an E.164 phone number such as +15017122661')
    .optional(),
  TWILIO_MESSAGING_SERVICE_SID: z
    .string()
    .regex(/^MG[0-9a-f]{32}$/i, 'must be a Twilio Messaging Service SID (MG followed by 32 hex digits)')
    .optional(),
  // Plain http would carry the auth token in clear, so it is only allowed to this machine (tests,
  // a local mock); anything else must be https.
  SKEIN_TWILIO_API_URL: z
    .url({ protocol: /^https?$/ })
    .refine((value) => {
      const url = new URL(value);
      return url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    }, 'must be https (plain http only to 127.0.0.1, localhost or [::1])')
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://api.twilio.com'),
  SKEIN_CODE_TTL_SECONDS: positiveInt.default(600),
  SKEIN_VERIFICATION_REQUESTS_PER_HOUR: positiveInt.default(10),
  SKEIN_CODE_FAILURES_PER_15_MIN: positiveInt.default(10),
  SKEIN_WS_HEARTBEAT_SECONDS: positiveInt.default(30),
  SKEIN_WS_MAX_BUFFERED_BYTES: positiveInt.default(1024 * 1024),
  SKEIN_EVENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(16 * 1024)
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  SKEIN_WS_MAX_SOCKETS_PER_USER: positiveInt.default(20),
  SKEIN_STREAM_IDLE_SECONDS: positiveInt.default(30),
  SKEIN_MAX_OPEN_STREAMS_PER_USER: positiveInt.default(20),
  SKEIN_RATE_LIMIT_STREAM_APPENDS_PER_MIN: positiveInt.default(3000),
  SKEIN_COMPLETION_TIMEOUT_SECONDS: positiveInt.default(120),
  SKEIN_MAX_OPEN_COMPLETIONS_PER_USER: positiveInt.default(20),
  SKEIN_WS_MAX_SOCKETS_PER_ADDRESS: positiveInt.default(200),
  SKEIN_EVENT_RETENTION_DAYS: positiveInt.default(7),
  SKEIN_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Uploaded files; a folder every instance mounts when several share one Neo4j. */
  filesDir: string;
  publicUrl: string;
  /** Whether cookies get the Secure flag: only when the public address is https. */
  secureCookies: boolean;
  neo4j: {
    /** Unset: the service starts its own embedded Neo4j. */
    uri: string | undefined;
    user: string;
    password: string | undefined;
    database: string | undefined;
    embeddedPort: number;
    embeddedHeap: string;
    embeddedPageCache: string;
    /** Niceness added to the service's own for the embedded JVM (embedded-neo4j.ts); 0: the same priority. */
    embeddedNice: number;
    /** At most this long, before listening, the service rehearses its hot paths (warm-up.ts); 0: never. */
    warmUpSeconds: number;
  };
  redisUrl: string | undefined;
  sessionTtlSeconds: number;
  /** Budget of the cache of read answers (http/view-cache.ts), in MiB; 0 switches it off. */
  viewCacheMb: number;
  /** Post transactions this instance runs at once in each lane (components/messages/post-lanes.ts). */
  postWriters: number;
  rateLimits: {
    authPerMinute: number;
    loginFailuresPer15Min: number;
    /** Messages posted (posts, imports, content edits) per account per minute: a request counts its messages. */
    postsPerMinute: number;
    /** Pings, recipient adds, uploads, reactions and profile edits per account per minute, each kind on its own budget. */
    actionsPerMinute: number;
    /** Recipients summed over the messages of one post request (POST /v1/messages, imports); past it, 422. */
    maxDeliveriesPerPost: number;
    /** Managed users (bots) one account may manage, deleted ones not counted; past it, 422. */
    maxManagedUsers: number;
  };
  bcryptCost: number;
  admin: { tag: string; password: string } | undefined;
  trustProxy: boolean;
  /** Web origins whose pages may call the API (CORS); empty, the default, turns CORS off. */
  corsOrigins: string[];
  webhookAllowPrivate: boolean;
  /** New self-registered accounts get has_api_access (a self-hosted instance among trusted users). */
  defaultApiAccess: boolean;
  /** Largest file POST /v1/files/upload accepts, in bytes; beyond it the answer is 413. */
  maxUploadBytes: number;
  /** How verification and password-reset codes leave the service (`log`: the outbox file). */
  messaging: {
    mailTransport: 'log' | 'smtp';
    smsTransport: 'log' | 'twilio';
    smtpUrl: string | undefined;
    mailFrom: string;
    /** Set exactly when smsTransport is `twilio`. */
    twilio: TwilioSettings | undefined;
  };
  /** Codes and endpoint challenges: lifetime, and the limits on asking for and guessing them. */
  verification: {
    codeTtlSeconds: number;
    /** Challenge requests per account and per target address (email, phone, URL, reset target) per hour. */
    requestsPerHour: number;
    /** Wrong codes per account per 15 minutes, across all of its challenges. */
    codeFailuresPer15Min: number;
  };
  /** Live delivery (WebSocket and subscriptions). */
  realtime: {
    /** Seconds between server pings; a socket that has not answered the previous one is cut. */
    heartbeatSeconds: number;
    /** Bytes a socket may hold unsent before its client counts as a slow consumer and is closed. */
    maxBufferedBytes: number;
    /**
     * JSON bytes one event may carry in any transport; contexts and, last, contents are cut beyond
     * (event-budget.ts). At most half of maxBufferedBytes, so one event never makes a slow consumer.
     */
    eventMaxBytes: number;
    /**
     * Open notification sockets and subscriptions one user may hold: on all instances together with
     * REDIS_URL (feed-ceilings.ts), else on this one.
     */
    maxSocketsPerUser: number;
    /** The same, per client address (many accounts behind one address; finding #12). */
    maxSocketsPerAddress: number;
    /** Days an event stays in the log: how far back a cursor can replay. */
    eventRetentionDays: number;
  };
  /** Streamed replies (src/components/live/, decision 031). */
  streams: {
    /** A stream with no chunk for this long ends by itself, leaving no message. */
    idleMs: number;
    /** Streams one account may have open at once; one more is 429. */
    maxOpenPerUser: number;
    /** Chunk appends per account per minute. */
    appendsPerMinute: number;
  };
  /** Chat completions (src/components/completions/, decision 033). */
  completions: {
    /** A bot that has not begun its reply within this makes the completion 504 (its turn taken back). */
    timeoutMs: number;
    /** Completions one account may hold open at once on an instance; one more is 429. */
    maxOpenPerUser: number;
  };
  /** Bearer token for GET /metrics; unset, the endpoint answers 404. */
  metricsToken: string | undefined;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
}

/** Twilio Programmable Messaging: where to send, the account's credentials, and who sends. */
export interface TwilioSettings {
  /** The API's address without a trailing slash: https://api.twilio.com unless pointed elsewhere. */
  apiUrl: string;
  accountSid: string;
  authToken: string;
  /** Exactly one: a number of the account, or a Messaging Service that picks the sender itself. */
  sender: { from: string } | { messagingServiceSid: string };
}

export class ConfigError extends Error {}

/** The Twilio settings when SKEIN_SMS_TRANSPORT=twilio (undefined otherwise); throws on a gap. */
function twilioSettings(e: z.infer<typeof EnvSchema>): TwilioSettings | undefined {
  if (e.SKEIN_SMS_TRANSPORT !== 'twilio') return undefined;
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken } = e;
  if (accountSid === undefined || authToken === undefined) {
    const missing = [
      accountSid === undefined ? 'TWILIO_ACCOUNT_SID' : null,
      authToken === undefined ? 'TWILIO_AUTH_TOKEN' : null,
    ].filter((name) => name !== null);
    throw new ConfigError(
      `invalid configuration: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required ` +
        'with SKEIN_SMS_TRANSPORT=twilio',
    );
  }
  const { TWILIO_FROM: from, TWILIO_MESSAGING_SERVICE_SID: messagingServiceSid } = e;
  // Twilio also accepts both in one request; asking for exactly one leaves no doubt about which
  // sender recipients see.
  const sender =
    from !== undefined && messagingServiceSid === undefined
      ? { from }
      : messagingServiceSid !== undefined && from === undefined
        ? { messagingServiceSid }
        : undefined;
  if (sender === undefined) {
    throw new ConfigError(
      'invalid configuration: SKEIN_SMS_TRANSPORT=twilio needs exactly one of TWILIO_FROM and ' +
        `TWILIO_MESSAGING_SERVICE_SID (${from === undefined ? 'neither is' : 'both are'} set)`,
    );
  }
  return { apiUrl: e.SKEIN_TWILIO_API_URL, accountSid, authToken, sender };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (PORT=) counts as unset rather than as an empty value.
  const given = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  if ((e.SKEIN_ADMIN_TAG === undefined) !== (e.SKEIN_ADMIN_PASSWORD === undefined)) {
    throw new ConfigError('invalid configuration: SKEIN_ADMIN_TAG and SKEIN_ADMIN_PASSWORD go together');
  }
  if (e.SKEIN_MAIL_TRANSPORT === 'smtp' && e.SMTP_URL === undefined) {
    throw new ConfigError('invalid configuration: SMTP_URL is required with SKEIN_MAIL_TRANSPORT=smtp');
  }
  const twilio = twilioSettings(e);
  if (e.NEO4J_URI && e.NEO4J_PASSWORD === undefined) {
    throw new ConfigError('invalid configuration: NEO4J_PASSWORD is required with NEO4J_URI');
  }
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.SKEIN_DATA_DIR),
    filesDir: path.resolve(e.SKEIN_FILES_DIR ?? path.join(e.SKEIN_DATA_DIR, 'files')),
    publicUrl,
    secureCookies: publicUrl.startsWith('https://'),
    neo4j: {
      uri: e.NEO4J_URI,
      user: e.NEO4J_USER,
      password: e.NEO4J_PASSWORD,
      database: e.NEO4J_DATABASE,
      embeddedPort: e.SKEIN_NEO4J_PORT,
      embeddedHeap: e.SKEIN_NEO4J_HEAP,
      embeddedPageCache: e.SKEIN_NEO4J_PAGECACHE,
      embeddedNice: e.SKEIN_NEO4J_NICE,
      warmUpSeconds: e.SKEIN_WARMUP_SECONDS,
    },
    redisUrl: e.REDIS_URL,
    sessionTtlSeconds: e.SKEIN_SESSION_TTL_SECONDS,
    viewCacheMb: e.SKEIN_VIEW_CACHE_MB,
    postWriters: e.SKEIN_POST_WRITERS,
    rateLimits: {
      authPerMinute: e.SKEIN_RATE_LIMIT_AUTH_PER_MIN,
      loginFailuresPer15Min: e.SKEIN_LOGIN_FAILURES_PER_15_MIN,
      postsPerMinute: e.SKEIN_RATE_LIMIT_POSTS_PER_MIN,
      actionsPerMinute: e.SKEIN_RATE_LIMIT_ACTIONS_PER_MIN,
      maxDeliveriesPerPost: e.SKEIN_MAX_DELIVERIES_PER_POST,
      maxManagedUsers: e.SKEIN_MAX_MANAGED_USERS,
    },
    bcryptCost: e.SKEIN_BCRYPT_COST,
    admin:
      e.SKEIN_ADMIN_TAG && e.SKEIN_ADMIN_PASSWORD
        ? { tag: e.SKEIN_ADMIN_TAG, password: e.SKEIN_ADMIN_PASSWORD }
        : undefined,
    trustProxy: e.SKEIN_TRUST_PROXY,
    corsOrigins: e.SKEIN_CORS_ORIGINS,
    webhookAllowPrivate: e.SKEIN_WEBHOOK_ALLOW_PRIVATE,
    defaultApiAccess: e.SKEIN_DEFAULT_API_ACCESS,
    maxUploadBytes: e.SKEIN_MAX_UPLOAD_BYTES,
    messaging: {
      mailTransport: e.SKEIN_MAIL_TRANSPORT,
      smsTransport: e.SKEIN_SMS_TRANSPORT,
      smtpUrl: e.SMTP_URL,
      mailFrom: e.SKEIN_MAIL_FROM,
      twilio,
    },
    verification: {
      codeTtlSeconds: e.SKEIN_CODE_TTL_SECONDS,
      requestsPerHour: e.SKEIN_VERIFICATION_REQUESTS_PER_HOUR,
      codeFailuresPer15Min: e.SKEIN_CODE_FAILURES_PER_15_MIN,
    },
    realtime: {
      heartbeatSeconds: e.SKEIN_WS_HEARTBEAT_SECONDS,
      maxBufferedBytes: e.SKEIN_WS_MAX_BUFFERED_BYTES,
      eventMaxBytes: Math.min(e.SKEIN_EVENT_MAX_BYTES, Math.floor(e.SKEIN_WS_MAX_BUFFERED_BYTES / 2)),
      maxSocketsPerUser: e.SKEIN_WS_MAX_SOCKETS_PER_USER,
      maxSocketsPerAddress: e.SKEIN_WS_MAX_SOCKETS_PER_ADDRESS,
      eventRetentionDays: e.SKEIN_EVENT_RETENTION_DAYS,
    },
    streams: {
      idleMs: e.SKEIN_STREAM_IDLE_SECONDS * 1000,
      maxOpenPerUser: e.SKEIN_MAX_OPEN_STREAMS_PER_USER,
      appendsPerMinute: e.SKEIN_RATE_LIMIT_STREAM_APPENDS_PER_MIN,
    },
    completions: {
      timeoutMs: e.SKEIN_COMPLETION_TIMEOUT_SECONDS * 1000,
      maxOpenPerUser: e.SKEIN_MAX_OPEN_COMPLETIONS_PER_USER,
    },
    metricsToken: e.SKEIN_METRICS_TOKEN,
    logLevel: e.LOG_LEVEL,
  };
}
