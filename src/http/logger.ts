/**
 * The JSON logger (pino). Credentials are redacted wherever they could appear, request bodies are
 * never logged, and query-string values are masked because some clients put tokens there.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/settings.js';

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'password',
  'token',
  'key',
  '*.password',
  '*.token',
  '*.key',
];

/** A query parameter's name is logged only when it looks like a name, never like a credential. */
const LOGGABLE_PARAMETER_NAME = /^(?!mr[sk]_)[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

export function maskQueryValues(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const names = url
    .slice(queryStart + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => pair.split('=')[0] ?? '')
    .map((name) => `${LOGGABLE_PARAMETER_NAME.test(name) ? name : '…'}=…`);
  return `${url.slice(0, queryStart)}?${names.join('&')}`;
}

interface LoggedRequest {
  id: string;
  method: string;
  url: string;
  ip?: string;
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (request: LoggedRequest) => ({ id: request.id, method: request.method, url: maskQueryValues(request.url), remoteAddress: request.ip }),
      },
    },
    destination,
  );
}
