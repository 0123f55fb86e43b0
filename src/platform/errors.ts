// The one place that knows error shapes. Every failure leaves the service as
// {"detail": "<sentence>", "code": "<snake_case>"} with the status its code implies.
export const ERROR_STATUS = {
  bad_request: 400,
  answer_too_large: 400,
  invalid_json: 400,
  missing_api_key: 400,
  missing_field: 400,
  weak_password: 400,
  invalid_email: 400,
  invalid_phone: 400,
  invalid_endpoint: 400,
  invalid_code: 400,
  nonce_mismatch: 400,
  // The user's endpoint failed its proof: the caller's to fix, not a fault of Skein's.
  endpoint_unreachable: 400,
  subject_already_set: 400,
  not_authenticated: 401,
  invalid_api_key: 401,
  invalid_session: 401,
  invalid_credentials: 401,
  forbidden: 403,
  insufficient_scope: 403,
  api_access_required: 403,
  managed_user_forbidden: 403,
  not_manager: 403,
  account_disabled: 403,
  csrf_rejected: 403,
  not_author: 403,
  not_channel_member: 403,
  not_channel_admin: 403,
  not_found: 404,
  user_not_found: 404,
  key_not_found: 404,
  session_not_found: 404,
  message_not_found: 404,
  channel_not_found: 404,
  file_not_found: 404,
  link_not_found: 404,
  no_active_challenge: 404,
  member_not_found: 404,
  manager_not_found: 404,
  invitation_not_found: 404,
  delivery_not_found: 404,
  endpoint_not_found: 404,
  stream_not_found: 404,
  // A chat completion's model (decision 033): no such bot, or one that cannot answer.
  model_not_found: 404,
  method_not_allowed: 405,
  user_tag_taken: 409,
  last_channel_admin: 409,
  last_manager: 409,
  ambiguous_email: 409,
  conflict: 409,
  too_many_reactions: 409,
  too_many_own_reactions: 409,
  endpoint_disabled: 409,
  delivery_not_redeliverable: 409,
  // Streamed replies (decision 031): the stream ended, a reader stopped it, or the writer's seq is not the next.
  stream_ended: 409,
  stream_stopped: 409,
  stream_seq_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  invalid_reply_ids: 422,
  invalid_default_outgoing: 422,
  invalid_link: 422,
  // An account already manages SKEIN_MAX_MANAGED_USERS users: waiting does not help, deleting one does.
  too_many_managed_users: 422,
  upgrade_required: 426,
  rate_limited: 429,
  internal_error: 500,
  delivery_failed: 500,
  unavailable: 503,
  // A bot did not begin its reply to a chat completion in time (decision 033).
  completion_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class AppError extends Error {
  readonly status: number;
  /** Extra response headers, such as Retry-After on 429. */
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    detail: string,
    options: { headers?: Record<string, string>; issues?: ValidationIssue[] } = {},
  ) {
    super(detail);
    this.status = ERROR_STATUS[code];
    this.headers = options.headers ?? {};
    this.issues = options.issues;
  }

  readonly issues: ValidationIssue[] | undefined;

  toBody(): { detail: string | ValidationIssue[]; code: ErrorCode } {
    return { detail: this.issues ?? this.message, code: this.code };
  }
}

export function validationError(issues: ValidationIssue[]): AppError {
  return new AppError('validation_error', 'The request is not valid.', { issues });
}

/** The same answer for a message that does not exist and one the caller may not see. */
export function messageNotFound(): AppError {
  return new AppError('message_not_found', 'Message not found.');
}
