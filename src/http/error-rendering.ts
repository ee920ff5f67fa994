/**
 * Turns any error into the response a client sees: OpenAI-style `{error: {code, message, type,
 * param}}`. Known errors keep their status and safe message; anything unexpected is logged on
 * the server and answered with a generic 500 that carries the request id and nothing else.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors/app-error.js';
import { validationFailure } from './validation.js';

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    type: string;
    param: string | null;
    details?: Record<string, unknown>;
    request_id?: string;
  };
}

/** Network failures and SQLite lock time-outs: the store is there but cannot answer now. */
const STORE_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'SQLITE_BUSY', '3D000']);
/** PostgreSQL SQLSTATE classes meaning the server cannot serve: connection (08), resources (53), operator intervention (57P). */
const STORE_UNAVAILABLE_SQLSTATE_CLASSES = ['08', '53', '57P'];
/**
 * A row the request refers to was deleted by another request while this one ran (a document
 * uploaded into a knowledge base being deleted): SQLite's and PostgreSQL's foreign-key violation.
 */
const MISSING_REFERENCE_CODES = new Set(['SQLITE_CONSTRAINT_FOREIGNKEY', '23503']);
/**
 * Another request changed the same rows at the same moment: it wrote the unique row this one had
 * checked was free, or PostgreSQL rolled this transaction back to break a deadlock (40P01) or
 * keep transactions serializable (40001). Trying again succeeds or gives the real answer.
 */
const CONCURRENT_CHANGE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505', '40P01', '40001']);
/** How reading a request body fails when its client hangs up (Node's `aborted`, a stream closed early). */
const CLIENT_HANG_UP_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

function isStoreUnavailable(code: string): boolean {
  return (
    STORE_UNAVAILABLE_CODES.has(code) ||
    (/^[0-9A-Z]{5}$/.test(code) && STORE_UNAVAILABLE_SQLSTATE_CLASSES.some((prefix) => code.startsWith(prefix)))
  );
}

function fastifyClientError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'The request body must be sent as application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('body_too_large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json');
    default:
      break;
  }
  if (error instanceof SyntaxError) return new AppError('invalid_json');
  const status = error.statusCode ?? 500;
  if (status === 413) return new AppError('body_too_large');
  if (status === 415) return new AppError('unsupported_media_type');
  if (status >= 400 && status < 500) return new AppError('invalid_body', 'The request could not be read.');
  return undefined;
}

export function toAppError(error: unknown): AppError | undefined {
  if (isAppError(error)) return error;
  // Anything can be thrown, null and undefined included.
  const fastifyError = error as FastifyError | null | undefined;
  if (fastifyError?.validation) return validationFailure(fastifyError.validation as never, fastifyError.validationContext);
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code === 'string' && isStoreUnavailable(code)) return new AppError('store_unavailable');
  if (typeof code === 'string' && MISSING_REFERENCE_CODES.has(code))
    return new AppError('not_found', 'Something this request refers to does not exist any more.');
  if (typeof code === 'string' && CONCURRENT_CHANGE_CODES.has(code)) return new AppError('concurrent_change');
  if (error instanceof Error && /timeout exceeded when trying to connect|Connection terminated/i.test(error.message)) {
    return new AppError('store_unavailable');
  }
  if (typeof fastifyError?.code === 'string' && fastifyError.code.startsWith('FST_')) return fastifyClientError(fastifyError);
  if (error instanceof SyntaxError) return new AppError('invalid_json');
  return undefined;
}

export function errorBody(error: AppError, requestId?: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      type: error.type,
      param: error.param,
      ...(error.details !== undefined && { details: error.details }),
      ...(requestId !== undefined && { request_id: requestId }),
    },
  };
}

/** The stack without its first line: messages from drivers can quote user input, the frames cannot. */
function stackFrames(error: unknown): string | undefined {
  const stack = (error as Error | null | undefined)?.stack;
  return stack?.split('\n').slice(1).join('\n');
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // The client hung up before its body arrived: the socket's reset is neither a store outage nor
  // a failure of ours, and whatever is answered goes nowhere.
  if (request.raw.readableAborted && CLIENT_HANG_UP_CODES.has(String((error as { code?: unknown } | null | undefined)?.code))) {
    request.log.info('the client closed the connection before its request body arrived');
    return reply.status(400).send(errorBody(new AppError('invalid_body', 'The connection closed before the request body arrived.')));
  }
  const known = toAppError(error);
  // A rate limit or a used-up quota says when to come back, in the header clients and proxies read (RFC 9110 §10.2.3).
  const retryAfter = known?.code === 'rate_limited' || known?.code === 'quota_exceeded' ? known.details?.retry_after_seconds : undefined;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  if (known && known.status < 500) return reply.status(known.status).send(errorBody(known));
  request.log.error(
    {
      errorName: (error as Error | null | undefined)?.name,
      errorCode: (error as { code?: unknown } | null | undefined)?.code,
      frames: stackFrames(error),
    },
    'request failed',
  );
  const failure = known ?? new AppError('internal_error');
  return reply.status(failure.status).send(errorBody(failure, request.id));
}
