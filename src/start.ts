// Process entry: configuration, the service, and graceful shutdown on SIGTERM/SIGINT.
import { ConfigError, loadConfig } from './platform/config.js';
import { startIdleCollector } from './platform/idle-collector.js';
import { createLogger, logFormatFor } from './platform/logger.js';
import { runService } from './service.js';

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
