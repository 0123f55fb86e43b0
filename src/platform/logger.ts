// Structured JSON logs (pino). Secrets never reach a log line: credentials are redacted by path.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'skein' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.current_password',
        '*.new_password',
      ],
      censor: '[redacted]',
    },
  });
}
