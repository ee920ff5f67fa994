/**
 * The JSON logger (pino). Credentials are redacted wherever they could appear, request bodies are
 * never logged, and query-string values are masked because some clients put tokens there.
 *
 * Redaction works by key name at any depth, not by a list of paths: a library that logs its own
 * options (as @fastify/multipart does at `trace`, with the request's headers inside) must not be
 * able to leak a credential because nobody foresaw the path.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/settings.js';

const CENSOR = '[redacted]';

/** Keys whose values are credentials wherever they appear, compared in lower case with `-` and `_` removed. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'xapikey',
  'apikey',
  'password',
  'passphrase',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'secret',
  'clientsecret',
  'key',
  'secretkey',
  'privatekey',
]);

/** How deep redaction looks; deeper values are replaced whole, since nothing we log nests that far on purpose. */
const REDACTION_DEPTH_MAXIMUM = 8;

function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase().replace(/[-_]/g, ''));
}

/** A copy of `value` with every credential-named key censored; errors and other class instances pass through. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= REDACTION_DEPTH_MAXIMUM) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = isSecretKey(key) ? CENSOR : redactSecrets(item, depth + 1);
  return copy;
}

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
      formatters: { log: (object) => redactSecrets(object) as Record<string, unknown> },
      serializers: {
        req: (request: LoggedRequest) => ({
          id: request.id,
          method: request.method,
          url: maskQueryValues(request.url),
          remoteAddress: request.ip,
        }),
      },
    },
    destination,
  );
}
