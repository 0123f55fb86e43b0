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
        'req.query.access_token',
        'res.headers["set-cookie"]',
        '*.password',
        '*.current_password',
        '*.new_password',
      ],
      censor: '[redacted]',
    },
  });
}

/**
 * A WebSocket client may pass its token as ?access_token=…; request URLs are logged with that value
 * blanked (the redact paths above cover headers and parsed fields, not a substring of the URL).
 */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/([?&]access_token=)[^&#]*/gi, '$1[redacted]');
}
