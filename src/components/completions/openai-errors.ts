// Every error of POST /v1/chat/completions carries OpenAI's `error` object beside the contract's
// `detail` and `code` (decision 033), so the official clients read their message and type while
// Skein's own clients read what they always read. Mounted before the body parser, so its failures
// (malformed JSON, too large) and the authentication's get the same shape as the route's own.
import type { RequestHandler } from 'express';
import type { ValidationIssue } from '../../platform/errors.js';

export interface OpenAiError {
  message: string;
  type: string;
  param: string | null;
  code: string;
}

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  504: 'timeout_error',
};

/** The `error` object for a contract error body of this status. */
export function openAiError(
  status: number,
  body: { detail: string | ValidationIssue[]; code: string },
): OpenAiError {
  const type = TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
  if (typeof body.detail === 'string') return { message: body.detail, type, param: null, code: body.code };
  const [first] = body.detail;
  // OpenAI names a parameter by its path in the body: messages.0.content.
  const param = first ? first.loc.filter((part) => part !== 'body').join('.') : null;
  const message = body.detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
  return { message: message || 'The request is not valid.', type, param: param || null, code: body.code };
}

/** Adds `error` to every contract error body this path answers. */
export function openAiErrorBodies(): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode >= 400 && isContractError(body))
        return json({ ...body, error: openAiError(res.statusCode, body) });
      return json(body);
    };
    next();
  };
}

function isContractError(body: unknown): body is { detail: string | ValidationIssue[]; code: string } {
  return (
    typeof body === 'object' && body !== null && 'detail' in body && 'code' in body && !('error' in body)
  );
}
