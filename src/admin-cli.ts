// `npm run admin -- <command>`: server-side administration for whoever runs the service, with no
// admin account and no restart. It connects to the same Neo4j as the service (NEO4J_URI, or the
// running service's embedded one through $SKEIN_DATA_DIR/neo4j-password), with the same environment.
//   grant <user_tag> <scope>...               add scopes (messages.write, channels.create, admin, ...)
//   api-access <user_tag> [on|off]            API access for the user and the bots it manages
//   create-bot <manager_tag> <bot_tag> [name] a bot managed by that user, API access for both, and its
//                                             first API key (printed once)
//   backup <file>, restore <file> [--force]   components/backup/backup-command.ts
import {
  BACKUP_USAGE,
  BackupRefusal,
  BackupUsageError,
  runBackupCommand,
} from './components/backup/backup-command.js';
import { SessionCache } from './components/identity/session-cache.js';
import { ViewCache } from './platform/http/view-cache.js';
import {
  createBotWithKey,
  grantScopesByTag,
  setApiAccessByTag,
} from './components/admin/administer-users.js';
import { startLive } from './components/live/live-services.js';
import { startEventLog } from './components/event-log/event-log-services.js';
import { parseScopeList } from './platform/auth/scopes.js';
import { ConfigError, loadConfig } from './platform/config.js';
import type { AppContext } from './platform/context.js';
import { AppError } from './platform/errors.js';
import { createLogger } from './platform/logger.js';
import { Database, type Neo4jTarget } from './platform/neo4j/database.js';
import { embeddedNeo4jTarget } from './platform/neo4j/embedded-neo4j.js';
import { createMetrics } from './platform/metrics.js';
import { createRateLimits } from './platform/rate-limits.js';
import { Signal } from './platform/signal.js';

const USAGE = `Usage: npm run admin -- <command>
  grant <user_tag> <scope>...               add scopes: messages.read messages.write realtime.connect channels.create admin
  api-access <user_tag> [on|off]            API access (x-api-key, POST /v1/auth/token) for the user and its bots
  create-bot <manager_tag> <bot_tag> [name] create a bot managed by <manager_tag>, API access for both, and a first key
${BACKUP_USAGE}`;

class UsageError extends Error {}

async function run(args: string[], ctx: AppContext): Promise<string> {
  const [command, ...rest] = args;
  switch (command) {
    case 'grant': {
      const [tag, ...names] = rest;
      if (!tag || names.length === 0) throw new UsageError('grant needs a user tag and at least one scope.');
      const { scopes, unknown } = parseScopeList(names.join(' '));
      if (unknown.length > 0) throw new UsageError(`Unknown scope: ${unknown.join(', ')}.`);
      const { user, scopes: granted } = await grantScopesByTag(ctx, tag, scopes);
      // Sessions keep the permissions they were minted with (as after PATCH /v1/admin/users/{uid}).
      return `@${user.user_tag} (${user.uid}) now has: ${granted.join(' ')}. Sign in again to use them.`;
    }
    case 'api-access': {
      const [tag, state = 'on'] = rest;
      if (!tag || !['on', 'off'].includes(state))
        throw new UsageError('api-access needs a user tag, then on or off.');
      const users = await setApiAccessByTag(ctx, tag, state === 'on');
      return users
        .map((user) => `@${user.user_tag} (${user.uid}): has_api_access ${user.has_api_access}`)
        .join('\n');
    }
    case 'create-bot': {
      const [managerTag, botTag, ...name] = rest;
      if (!managerTag || !botTag) throw new UsageError('create-bot needs the manager tag and the bot tag.');
      const { bot, key, lacking } = await createBotWithKey(ctx, {
        managerTag,
        botTag,
        displayName: name.length > 0 ? name.join(' ') : undefined,
      });
      const manager = managerTag.replace(/^@/, '');
      return [
        `Created bot @${bot.user_tag} (${bot.uid}), managed by @${manager}; both have API access.`,
        `API key (shown only now; store it): ${key.key}`,
        `Try it: curl -s -H 'x-api-key: ${key.key}' ${ctx.config.publicUrl}/v1/users/me`,
        ...(lacking.length > 0
          ? [
              `Note: a bot holds no more than its manager, and @${manager} lacks ${lacking.join(' ')}.`,
              `Verify @${manager}'s email, or: npm run admin -- grant ${manager} ${lacking.join(' ')}`,
            ]
          : []),
      ].join('\n');
    }
    default:
      throw new UsageError(command ? `Unknown command: ${command}.` : 'No command given.');
  }
}

function neo4jTarget(config: ReturnType<typeof loadConfig>): Neo4jTarget {
  if (config.neo4j.uri) {
    return {
      uri: config.neo4j.uri,
      user: config.neo4j.user,
      password: config.neo4j.password ?? '',
      database: config.neo4j.database,
    };
  }
  const embedded = embeddedNeo4jTarget(config.dataDir, config.neo4j.embeddedPort);
  if (!embedded) {
    throw new UsageError(
      `No Neo4j to talk to: set NEO4J_URI, or start the service once (npm start) with the same SKEIN_DATA_DIR (${config.dataDir}).`,
    );
  }
  return embedded;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length === 0 || args[0] === '--help' || args[0] === 'help') {
    console.log(USAGE);
    return args.length === 0 ? 2 : 0;
  }
  let db: Database | undefined;
  let close: (() => Promise<void>) | undefined;
  try {
    const config = loadConfig();
    const log = createLogger('warn');
    // Backup and restore open Neo4j themselves: a restore's target has no schema or event log yet.
    if (args[0] === 'backup' || args[0] === 'restore') {
      console.log(await runBackupCommand(args, config, log));
      return 0;
    }
    db = Database.connect(neo4jTarget(config));
    const metrics = createMetrics({ defaults: false });
    // The same event log as the service's, so anything a command records reaches its sockets.
    const events = await startEventLog(config, db, log, metrics);
    const live = await startLive(config, events, log);
    const limits = createRateLimits(config);
    // With REDIS_URL, what a command changes empties the running instances' session and view caches.
    const sessions = await SessionCache.start(config, db, log);
    const views = await ViewCache.start(config, db, log, metrics);
    close = async () => {
      await live.stop();
      await events.stop();
      await limits.close();
      await sessions.close();
      await views.close();
    };
    console.log(
      await run(args, {
        config,
        db,
        log,
        limits,
        events,
        metrics,
        sessions,
        views,
        live,
        webhookWork: new Signal(),
      }),
    );
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof BackupUsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof AppError || error instanceof ConfigError || error instanceof BackupRefusal) {
      console.error(error.message);
      return 1;
    }
    // Most often the embedded Neo4j is not running: the service starts it.
    console.error(`The command failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await close?.();
    await db?.close();
  }
}

process.exitCode = await main();
