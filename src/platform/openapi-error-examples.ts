// Examples of each operation's error answers for the OpenAPI document, so that /docs shows the codes
// an operation really answers (first-hour review 2026-11-28 #8: every error example read
// {"detail": "string", "code": "string"}). A route's `errors` describe each status in a sentence that
// names its codes (`not_manager`, or "(ambiguous_email)"); every code named there whose status is the
// response's becomes an example with that sentence as its detail. A sentence that names none gets the
// code that status answers in general, read from the sentence where it says which (a missing scope,
// a managed user, API access, a message that is not found).
import { ERROR_STATUS, type ErrorCode } from './errors.js';

interface Example {
  summary: string;
  value: { detail: string | { loc: string[]; msg: string; type: string }[]; code: ErrorCode };
}

/** The code a status answers when its sentence names none. */
const GENERAL: Partial<Record<number, ErrorCode[]>> = {
  400: ['bad_request'],
  401: ['not_authenticated', 'invalid_session', 'invalid_api_key'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['conflict'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['validation_error'],
  426: ['upgrade_required'],
  429: ['rate_limited'],
  500: ['internal_error'],
  503: ['unavailable'],
};

/** Codes a 403 or 404 sentence implies without naming them. */
const IMPLIED: { status: number; pattern: RegExp; code: ErrorCode }[] = [
  { status: 403, pattern: /scope|messages\.(read|write)|\bmissing\b/i, code: 'insufficient_scope' },
  { status: 403, pattern: /managed users? cannot/i, code: 'managed_user_forbidden' },
  { status: 403, pattern: /has_api_access|partner access/i, code: 'api_access_required' },
  { status: 404, pattern: /\bmessages?\b|not visible/i, code: 'message_not_found' },
  { status: 404, pattern: /\bchannel\b/i, code: 'channel_not_found' },
  { status: 404, pattern: /\bfile\b/i, code: 'file_not_found' },
  { status: 404, pattern: /\buser\b/i, code: 'user_not_found' },
];

function codesIn(status: number, description: string): ErrorCode[] {
  const named = new Set<ErrorCode>();
  for (const word of description.match(/[a-z]+(?:_[a-z]+)+/g) ?? []) {
    if (word in ERROR_STATUS && ERROR_STATUS[word as ErrorCode] === status) named.add(word as ErrorCode);
  }
  if (named.size === 0) {
    for (const implied of IMPLIED) {
      if (implied.status === status && implied.pattern.test(description)) named.add(implied.code);
    }
  }
  return named.size > 0 ? [...named] : (GENERAL[status] ?? []);
}

/** The examples of one error response: one per code, keyed by the code. */
export function errorExamples(status: number, description: string): Record<string, Example> {
  const detail = description.replace(/`/g, '');
  const examples: Record<string, Example> = {};
  for (const code of codesIn(status, description)) {
    examples[code] = {
      summary: code,
      value: {
        code,
        detail: code === 'validation_error' ? [{ loc: ['body'], msg: detail, type: 'value_error' }] : detail,
      },
    };
  }
  return examples;
}
