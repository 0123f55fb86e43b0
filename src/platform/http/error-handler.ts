// The last middleware: every failure leaves as {"detail", "code"}. Body parser failures are the
// client's (400 malformed JSON, 413 too large); a database outage is 503 with Retry-After; anything
// unexpected is logged and answered 500 without internals. A client that hangs up while its answer
// is streamed (a download it stops reading) is not a failure of the service: it is logged at debug
// level only, so that error-level lines stay worth an alarm.
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { databaseUnavailable } from '../neo4j/database-unavailable.js';

interface BodyParserError {
  type?: string;
  status?: number;
}

export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new AppError('not_found', 'No such path.'));
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (clientHungUp(error, res)) {
      log.debug(
        { method: req.method, url: req.originalUrl },
        'client closed the connection before the answer ended',
      );
      return;
    }
    const appError = toAppError(error);
    if (appError.status >= 500)
      log.error({ err: error, method: req.method, url: req.originalUrl }, 'request failed');
    if (res.headersSent) return;
    res.status(appError.status).set(appError.headers).json(appError.toBody());
  };
}

// What writing to (or piping into) a response reports once the client's connection is gone.
const HUNG_UP_CODES = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ECONNRESET', 'EPIPE']);

/** The response was cut off by its connection closing, and the error only says so. */
function clientHungUp(error: unknown, res: Response): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return res.destroyed && !res.writableFinished && code !== undefined && HUNG_UP_CODES.has(code);
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const outage = databaseUnavailable(error);
  if (outage) return outage;
  const parserError = error as BodyParserError;
  switch (parserError.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError('payload_too_large', 'The request body is too large.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Unsupported body encoding.');
    default:
      if (parserError.status && parserError.status >= 400 && parserError.status < 500) {
        return new AppError('bad_request', 'The request could not be read.');
      }
      return new AppError('internal_error', 'The operation failed.');
  }
}
