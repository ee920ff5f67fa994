/**
 * The one catalogue of errors Merino reports to clients. Every failure that reaches the HTTP edge
 * is an AppError with a stable `code`; the edge renders it as OpenAI-style error JSON. Messages
 * and details must be safe to show: no secrets, no learner text, no stack traces.
 */

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'server_error';

interface CatalogueEntry {
  status: number;
  type: ErrorType;
  message: string;
}

/** Every code with its status and type; docs/errors.md lists them all (test/error-catalogue-is-documented.test.ts checks it). */
export const catalogue = {
  invalid_body: { status: 400, type: 'invalid_request_error', message: 'The request body is invalid.' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  invalid_query: { status: 400, type: 'invalid_request_error', message: 'A query parameter is invalid.' },
  invalid_parameter: { status: 400, type: 'invalid_request_error', message: 'A path parameter is invalid.' },
  invalid_metadata: { status: 400, type: 'invalid_request_error', message: 'The assistant metadata is invalid.' },
  invalid_import: { status: 400, type: 'invalid_request_error', message: 'The import document is not an assistant export.' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', message: 'The request body must be JSON.' },
  body_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  request_timeout: { status: 408, type: 'invalid_request_error', message: 'The request was not received in time.' },
  headers_too_large: { status: 431, type: 'invalid_request_error', message: 'The request headers are too large.' },
  unknown_users: { status: 400, type: 'invalid_request_error', message: 'Some users do not exist.' },
  immutable_field: { status: 400, type: 'invalid_request_error', message: 'This field cannot be changed.' },
  weak_password: { status: 400, type: 'invalid_request_error', message: 'The password is too short.' },
  invalid_file: { status: 400, type: 'invalid_request_error', message: 'The file is not an accepted text file.' },
  file_too_large: { status: 413, type: 'invalid_request_error', message: 'The file is too large.' },
  unauthenticated: { status: 401, type: 'authentication_error', message: 'Authentication is required.' },
  invalid_credentials: { status: 401, type: 'authentication_error', message: 'The email or password is wrong.' },
  invalid_token: { status: 401, type: 'authentication_error', message: 'The token is invalid, expired or revoked.' },
  csrf_rejected: {
    status: 403,
    type: 'permission_error',
    message: 'A change made with the session cookie must come from this server or an allowed origin.',
  },
  account_disabled: { status: 403, type: 'permission_error', message: 'This account is disabled.' },
  unknown_organization: { status: 400, type: 'invalid_request_error', message: 'The organization does not exist.' },
  forbidden: { status: 403, type: 'permission_error', message: 'You are not allowed to do this.' },
  not_found: { status: 404, type: 'not_found_error', message: 'Not found.' },
  route_not_found: { status: 404, type: 'not_found_error', message: 'No such endpoint.' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'Method not allowed.' },
  email_taken: { status: 409, type: 'conflict_error', message: 'A user with this email already exists.' },
  organization_suspended: {
    status: 403,
    type: 'permission_error',
    message: 'Your organization is suspended; ask a system administrator to reactivate it.',
  },
  password_change_required: {
    status: 403,
    type: 'permission_error',
    message: 'You must change your one-time password first (POST /api/auth/password).',
  },
  sign_up_refused: {
    status: 403,
    type: 'permission_error',
    message:
      'Sign-up failed: the sign-up key is not valid, or this email address cannot be used. If you already have an account, log in instead.',
  },
  email_domain_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: 'This sign-up key is only for email addresses of one domain.',
  },
  slug_taken: { status: 409, type: 'conflict_error', message: 'An organization with this slug already exists.' },
  organization_not_empty: {
    status: 409,
    type: 'conflict_error',
    message: 'The organization still has members or content; move or delete them first.',
  },
  rubric_id_taken: { status: 409, type: 'conflict_error', message: 'A rubric with this rubricId already exists in your organization.' },
  ambiguous_rubric: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Several organizations have a rubric with this rubricId; name one with ?organization_id=.',
  },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'Too many requests; try again later.' },
  quota_exceeded: { status: 429, type: 'rate_limit_error', message: "An organization's limit would be passed." },
  plugin_disabled: { status: 400, type: 'invalid_request_error', message: 'A plugin the assistant uses is disabled in its organization.' },
  job_state_conflict: { status: 409, type: 'conflict_error', message: 'The ingestion job is not in a state that allows this.' },
  concurrent_change: {
    status: 409,
    type: 'conflict_error',
    message: 'Another request made the same change at the same moment; try again.',
  },
  chat_full: { status: 409, type: 'conflict_error', message: 'This chat holds as many messages as a chat may; start a new chat.' },
  chat_run_in_progress: {
    status: 409,
    type: 'conflict_error',
    message: 'This chat is still answering; wait for the answer, or stop it, before asking again.',
  },
  chat_runs_limit: {
    status: 429,
    type: 'rate_limit_error',
    message: 'You have as many answers running as you may; wait for one to finish, or stop one.',
  },
  test_cases_limit: {
    status: 409,
    type: 'conflict_error',
    message: 'This assistant holds as many test cases as it may; delete one before adding another.',
  },
  no_small_fast_model: {
    status: 409,
    type: 'conflict_error',
    message: "The organization names no small fast model; an admin can choose one in the organization's provider settings.",
  },
  test_runs_limit: {
    status: 429,
    type: 'rate_limit_error',
    message: 'This assistant has as many test runs running as it may; wait for one to finish, or stop one.',
  },
  job_event_streams_limit: {
    status: 429,
    type: 'rate_limit_error',
    message: 'You have as many job event streams open as you may; close one (or poll the jobs instead).',
  },
  chat_run_interrupted: {
    status: 503,
    type: 'server_error',
    message: 'The server producing this answer stopped before it finished; ask again.',
  },
  file_in_use: {
    status: 409,
    type: 'conflict_error',
    message: 'Assistants use this file; delete it with ?force=true to delete it anyway.',
  },
  nothing_to_regenerate: { status: 409, type: 'conflict_error', message: 'This chat has no question to answer again.' },
  forwarded_user_unknown: {
    status: 403,
    type: 'permission_error',
    message:
      "The person the front end names has no account in the key's organization, and the organization does not let front ends create learners.",
  },
  forwarded_user_refused: {
    status: 403,
    type: 'permission_error',
    message: 'A front end may act only as a member of its own organization who is not a system administrator.',
  },
  source_link_expired: {
    status: 410,
    type: 'not_found_error',
    message: 'This source link has expired; ask the question again for a new one.',
  },
  model_not_found: { status: 404, type: 'not_found_error', message: 'The model does not exist or you do not have access to it.' },
  assistant_not_convertible: {
    status: 409,
    type: 'conflict_error',
    message: 'Only a classic assistant whose rag processor is an installed context tool can be converted to a multi-tool assistant.',
  },
  ambiguous_model: { status: 400, type: 'invalid_request_error', message: 'Several assistants have this name; use lamb_assistant.<id>.' },
  assistant_misconfigured: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The assistant is configured with something this server does not have.',
  },
  upstream_rejected: { status: 400, type: 'invalid_request_error', message: 'The model provider rejected the request.' },
  upstream_rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'The model provider is rate limiting requests; try again later.',
  },
  upstream_error: { status: 502, type: 'server_error', message: 'The model provider failed to answer.' },
  image_refused: {
    status: 422,
    type: 'invalid_request_error',
    message: 'The image provider refused to generate this image under its content policy; ask for a different image.',
  },
  image_too_large: {
    status: 502,
    type: 'server_error',
    message: 'The generated image is larger than this server keeps (IMAGE_MAX_BYTES).',
  },
  upstream_timeout: { status: 504, type: 'server_error', message: 'The model provider did not answer in time.' },
  url_refused: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The URL points to a private or internal address, which organizations may not use.',
  },
  upstream_refused: {
    status: 502,
    type: 'server_error',
    message: 'The configured URL points to a private or internal address, which Merino does not call for an organization.',
  },
  store_unavailable: { status: 503, type: 'server_error', message: 'The database is unavailable.' },
  storage_unavailable: { status: 503, type: 'server_error', message: 'The file storage is unavailable.' },
  server_shutting_down: { status: 503, type: 'server_error', message: 'This server is shutting down; send the request again.' },
  upload_interrupted: { status: 503, type: 'server_error', message: 'The upload was interrupted; upload the file again.' },
  internal_error: { status: 500, type: 'server_error', message: 'Something went wrong on our side.' },
  unreadable_document: { status: 400, type: 'invalid_request_error', message: 'No text could be read from the document.' },
  document_too_large: { status: 413, type: 'invalid_request_error', message: 'The document is too long to index.' },
  document_processing_failed: {
    status: 422,
    type: 'invalid_request_error',
    message: 'Processing the document went past the time or memory one document may use.',
  },
  invalid_chunking: { status: 400, type: 'invalid_request_error', message: 'The chunking settings are invalid.' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof catalogue;

export interface AppErrorOptions {
  /** The request field the error is about, e.g. `name` or `metadata.tools[0].type`. */
  param?: string;
  /** Safe, structured details for the client. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message?: string, options: AppErrorOptions = {}) {
    const entry: CatalogueEntry = catalogue[code];
    super(message ?? entry.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
    this.details = options.details;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
