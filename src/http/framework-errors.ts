/**
 * Answers the requests Fastify and Node refuse before any route or error handler runs: a URL with
 * broken percent-encoding or an over-long path parameter (the router), and a request Node's HTTP
 * parser cannot read (a body shorter than its Content-Length, malformed headers, a header block
 * too large, a client too slow). Left to their defaults they answer in a shape of their own that
 * echoes the URL; here they get the same error JSON as every other refusal, without echoing input.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { errorBody } from './error-rendering.js';

/** Fastify's `frameworkErrors` option: a path it could not route gets 400 naming the problem. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is too long.'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'The request URL is not valid: it holds a malformed percent-encoding.'
        : 'The request URL could not be routed.';
  reply.status(400).send(errorBody(new AppError('invalid_parameter', message)));
}

function clientErrorFor(error: Error & { code?: string }): AppError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('request_timeout');
  if (error.code === 'HPE_HEADER_OVERFLOW') return new AppError('headers_too_large');
  return new AppError('invalid_body', 'The request could not be read: it is not well-formed HTTP or its body is shorter than announced.');
}

/** Fastify's `clientErrorHandler` option: Node's parser refused the request, so answer on the raw socket. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const failure = clientErrorFor(error);
  const body = JSON.stringify(errorBody(failure));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${failure.status} ${http.STATUS_CODES[failure.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
