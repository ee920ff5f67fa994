/**
 * The error every API call throws when the server answers with a status outside 2xx. It carries
 * the server's stable error code and the fields it names, so forms can show each problem at the
 * field it belongs to (see field-errors.ts).
 */

/** One problem the server listed in `details.errors`. */
export interface ApiProblem {
  path: string;
  message: string;
}

interface ApiErrorOptions {
  status: number;
  code: string;
  message: string;
  param?: string | undefined;
  problems?: ApiProblem[];
  details?: Record<string, unknown> | undefined;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;
  readonly problems: ApiProblem[];
  /** The error's safe `details` as the server sent them (e.g. the allowed email domain of a sign-up refusal). */
  readonly details: Record<string, unknown>;

  constructor(options: ApiErrorOptions) {
    super(options.message);
    this.name = 'ApiError';
    this.status = options.status;
    this.code = options.code;
    this.param = options.param;
    this.problems = options.problems ?? [];
    this.details = options.details ?? {};
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function problemsOf(details: unknown): ApiProblem[] {
  if (!isRecord(details) || !Array.isArray(details['errors'])) return [];
  return details['errors'].flatMap((entry: unknown) => {
    if (!isRecord(entry)) return [];
    const path = typeof entry['path'] === 'string' ? entry['path'] : typeof entry['param'] === 'string' ? entry['param'] : '';
    const message = typeof entry['message'] === 'string' ? entry['message'] : '';
    return message ? [{ path, message }] : [];
  });
}

/** Reads the server's `{error: {code, message, param, details}}` body; anything else becomes a generic error. */
export function apiErrorFromBody(status: number, body: unknown): ApiError {
  const error = isRecord(body) && isRecord(body['error']) ? body['error'] : undefined;
  if (!error) return new ApiError({ status, code: 'unexpected_response', message: `The server answered ${status}.` });
  return new ApiError({
    status,
    code: typeof error['code'] === 'string' ? error['code'] : 'unexpected_response',
    message: typeof error['message'] === 'string' ? error['message'] : `The server answered ${status}.`,
    param: typeof error['param'] === 'string' ? error['param'] : undefined,
    problems: problemsOf(error['details']),
    details: isRecord(error['details']) ? error['details'] : undefined,
  });
}
