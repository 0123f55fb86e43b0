// Process entry: configuration, the service, and graceful shutdown on SIGTERM/SIGINT, bounded so that
// the service and its embedded Neo4j are gone within 15 s (docs/decisions/032-clean-stops.md).
import { ConfigError, loadConfig } from './platform/config.js';
import { startIdleCollector } from './platform/idle-collector.js';
import { createLogger, logFormatFor } from './platform/logger.js';
import { runService } from './service.js';

/**
 * A stop still running after this long (a request that will not end, a Neo4j that will not close)
 * is cut short: Neo4j is killed, and its store recovers from its transaction log at the next start.
 * A stop of an idle service takes about 2 s; requests in flight get up to 10 s of it (service.ts).
 */
const STOP_DEADLINE_MS = 13_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel, { format: logFormatFor(process.env, process.stdout.isTTY) });
  const service = await runService(config, log, {
    onFatal: (reason) => {
      log.fatal(reason);
      process.exit(1);
    },
  });
  // Memory a burst left is given back once the service is quiet (platform/idle-collector.ts).
  startIdleCollector(log);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => {
      log.error(`stopping took over ${STOP_DEADLINE_MS / 1000} s: killing the embedded Neo4j and exiting`);
      service.kill();
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
