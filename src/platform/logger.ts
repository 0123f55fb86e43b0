// Structured JSON logs (pino), or one readable line per record on a terminal (pino-pretty). Secrets
// never reach a log line: credentials are redacted by path, before either format.
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

/** LOG_FORMAT=json|pretty wins; otherwise a terminal gets pretty lines and a pipe or file gets JSON. */
export function logFormatFor(env: Record<string, string | undefined>, isTTY: boolean): LogFormat {
  if (env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty') return env.LOG_FORMAT;
  return isTTY ? 'pretty' : 'json';
}

export interface LoggerOptions {
  format?: LogFormat;
  /** Where pretty lines go (standard output by default). */
  destination?: NodeJS.WritableStream;
}

export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const stream =
    options.format === 'pretty'
      ? pretty({
          colorize: options.destination === undefined,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,service,req,res',
          // A request record is a screen of headers; its method, URL and status are what a reader needs.
          messageFormat: '{if req.method}{req.method} {req.url} {res.statusCode} {end}{msg}',
          hideObject: false,
          singleLine: true,
          ...(options.destination ? { destination: options.destination } : {}),
        })
      : undefined;
  return pino(
    {
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
    },
    stream,
  );
}

/**
 * A WebSocket client may pass its token as ?access_token=…; request URLs are logged with that value
 * blanked (the redact paths above cover headers and parsed fields, not a substring of the URL).
 */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/([?&]access_token=)[^&#]*/gi, '$1[redacted]');
}
