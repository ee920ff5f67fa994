/**
 * Typed settings read from the environment once at start-up. A bad value stops the server with a
 * message naming the variable, instead of surfacing later as a confusing runtime failure.
 * Every limit the server enforces is a named setting here, with its default.
 */
import path from 'node:path';
import { trimCharactersEnd } from '../validation/trim-characters.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Settings {
  host: string;
  port: number;
  dataDirectory: string;
  /** postgres://… selects PostgreSQL; undefined means the embedded SQLite file in dataDirectory. */
  databaseUrl: string | undefined;
  logLevel: LogLevel;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  sessionTtlHours: number;
  passwordMinimumLength: number;
  bodyLimitBytes: number;
  /** How deeply a request's JSON may nest; deeper bodies are refused before any code walks them. */
  jsonDepthMaximum: number;
  pageSizeMaximum: number;
  shutdownTimeoutMilliseconds: number;
  /** Extra Kysely connection pool size for PostgreSQL. */
  databasePoolSize: number;
  /** Largest file `POST /api/files` accepts, in bytes. */
  fileUploadMaxBytes: number;
  /** Largest document `POST /api/knowledge-bases/{id}/documents` accepts, in bytes. */
  kbUploadMaxBytes: number;
  /** How often the ingestion runner looks for a pending job while idle. */
  ingestionPollMilliseconds: number;
  /** How long a claimed ingestion job stays a runner's without renewal; past it, another runner may take the job over. */
  ingestionLeaseMilliseconds: number;
  /** How many times a job may be started before a run cut short by a stopped server makes it fail instead of starting again. */
  ingestionAttemptsMaximum: number;
  /** Heap cap (V8 old generation, MB) of the worker thread that extracts and chunks one document. */
  ingestionWorkerHeapMegabytes: number;
  /** How much the process's resident memory may grow (MB) while a worker processes a document; covers buffers outside the worker's heap. */
  ingestionWorkerResidentMegabytes: number;
  /** How long extracting and chunking one document may take before its worker is stopped. */
  ingestionWorkerTimeoutMilliseconds: number;
  /** Most bytes one part of a Word document may inflate to, counted while inflating. */
  ingestionZipPartMaxBytes: number;
  /** Most chunks indexed from one document; a document that splits into more fails its job. */
  ingestionChunksMax: number;
  /** Most bytes the parts of one Word document may inflate to together. */
  ingestionZipTotalMaxBytes: number;
  /** Most bytes a PDF's compressed streams (other than images) may inflate to together. */
  ingestionPdfInflatedMaxBytes: number;
  /** How old an upload's leftovers (temporary files, staged files, stored files without a row) must be before start-up removes them. */
  uploadLeftoverGraceMilliseconds: number;
  /** Largest JSON body `POST /api/knowledge-bases/{id}/documents` reads; larger texts go as multipart uploads. */
  kbJsonBodyMaxBytes: number;
  /** Encrypts secrets at rest; without it a key file in the data folder is used. */
  secretKey: string | undefined;
  /** Provider defaults for assistants whose organization configures none. */
  openaiApiKey: string | undefined;
  openaiBaseUrl: string | undefined;
  ollamaBaseUrl: string;
  /** How long one context tool may run before its placeholder is left empty. */
  toolTimeoutMilliseconds: number;
  /** How long a model call may take before the client gets a 504. */
  upstreamTimeoutMilliseconds: number;
  /** How long one embeddings request (a batch of chunks, or a query) may take. */
  embeddingTimeoutMilliseconds: number;
  /** How many chunks go into one embeddings request while ingesting. */
  embeddingBatchSize: number;
  /** How long a query to an organization's external LAMB knowledge-base server may take. */
  kbServerTimeoutMilliseconds: number;
  /** How long the small fast model may take to rewrite a `context_aware` query before the last message is used. */
  queryRewriteTimeoutMilliseconds: number;
  /** Most documents one JSON `POST /api/knowledge-bases/{id}/documents` may carry. */
  kbJsonDocumentsMaximum: number;
  /** The tool loop's defaults; an assistant may lower or raise each up to its maximum. */
  toolLoopIterations: number;
  toolLoopIterationsMaximum: number;
  /** How long one function call the model asked for may run. */
  toolCallTimeoutMilliseconds: number;
  toolCallTimeoutMaximumMilliseconds: number;
  /** How long the whole tool loop (every model round and call) may take. */
  toolLoopTotalMilliseconds: number;
  toolLoopTotalMaximumMilliseconds: number;
  /** How many times one identical call (same name and arguments) is run in a request. */
  toolIdenticalCallsMaximum: number;
  /** A tool result longer than this many characters is cut, with a marker, before the model sees it. */
  toolResultCharactersMaximum: number;
  /** Open-Meteo, for the weather tool; configurable so tests and self-hosted instances can point elsewhere. */
  openMeteoGeocodingUrl: string;
  openMeteoForecastUrl: string;
  /** Moodle Web Services, for organizations that set none of their own. */
  moodleApiUrl: string | undefined;
  moodleToken: string | undefined;
  /** How long one call to Open-Meteo or Moodle may take. */
  integrationTimeoutMilliseconds: number;
  /**
   * Host names or addresses an organization's URLs (providers, knowledge-base server, Moodle) may
   * reach although they are not public; every other private or internal destination is refused.
   */
  outboundAllowedHosts: string[];
  /**
   * Whether a chat request made with an API key may name the person chatting in Open WebUI's
   * `X-OpenWebUI-User-Email` header (Open WebUI's ENABLE_FORWARD_USER_INFO_HEADERS). Only for
   * keys held by a trusted front end: whoever holds the key can claim any email. Only keys a
   * system admin marked `trusted_front_end` are believed, even when this is on.
   */
  trustForwardedUserHeaders: boolean;
  /**
   * Fastify's `trustProxy`: whether (true), through how many hops (a number) or from which proxy
   * addresses (a list) X-Forwarded-For names the client. Off by default: a client would otherwise
   * pick its own address, and with it its own rate-limit counter.
   */
  trustProxy: boolean | number | string[];
  /** Failed logins of one account within the window before further attempts get 429. */
  loginFailuresPerAccountMaximum: number;
  /** Failed logins from one client address within the window before further attempts get 429. */
  loginFailuresPerAddressMaximum: number;
  /** How long failed logins are counted, and how long a lock-out lasts at most. */
  loginFailureWindowSeconds: number;
  /** Chat requests (`/v1/chat/completions`, `/lamb/v1/completions`) one user may make per window. */
  chatRequestsPerUserMaximum: number;
  /** Chat requests one API key may make per window. */
  chatRequestsPerApiKeyMaximum: number;
  /** The window of the chat limits. */
  chatRateWindowSeconds: number;
  /** How long one call of an assistant used as a tool may run. */
  assistantToolTimeoutMilliseconds: number;
  /** How many assistant-tool calls one request may make. */
  assistantToolCallsMaximum: number;
  /** How long all assistant-tool calls of one request may take together. */
  assistantToolTotalMilliseconds: number;
  /** A target assistant's answer longer than this is cut, with a marker, before the orchestrator's model sees it. */
  assistantToolResultCharactersMaximum: number;
  /** CSP `frame-ancestors`: who may show Merino in a frame (an LMS for LTI launches). */
  frameAncestors: string[];
  /** Browser origins allowed to call the API across origins; empty closes CORS. */
  corsOrigins: string[];
}

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid setting ${variable}: ${problem}`);
    this.name = 'SettingsError';
  }
}

type Environment = Record<string, string | undefined>;

interface IntegerRule {
  defaultValue: number;
  minimum: number;
  maximum: number;
}

function readInteger(environment: Environment, variable: string, rule: IntegerRule): number {
  const raw = environment[variable];
  if (raw === undefined || raw.trim() === '') return rule.defaultValue;
  if (!/^\d+$/.test(raw.trim())) throw new SettingsError(variable, `expected a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < rule.minimum || value > rule.maximum) {
    throw new SettingsError(variable, `expected a number from ${rule.minimum} to ${rule.maximum}, got ${value}`);
  }
  return value;
}

function readBoolean(environment: Environment, variable: string, defaultValue: boolean): boolean {
  const value = readText(environment, variable)?.toLowerCase();
  if (value === undefined) return defaultValue;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new SettingsError(variable, 'must be true or false');
}

function readText(environment: Environment, variable: string): string | undefined {
  const raw = environment[variable];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function readLogLevel(environment: Environment): LogLevel {
  const raw = readText(environment, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new SettingsError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw as LogLevel;
}

function readDatabaseUrl(environment: Environment): string | undefined {
  const raw = readText(environment, 'DATABASE_URL');
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // The value may hold a password, so it is never echoed back.
    throw new SettingsError('DATABASE_URL', 'expected a URL such as postgres://user:password@host:5432/merino');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new SettingsError('DATABASE_URL', `only postgres:// URLs are supported, got ${parsed.protocol}//`);
  }
  return raw;
}

function readBaseUrl(environment: Environment, variable: string): string | undefined {
  const raw = readText(environment, variable);
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new SettingsError(variable, 'expected an http:// or https:// URL');
  }
  return trimCharactersEnd(raw, '/');
}

function readSecretKey(environment: Environment): string | undefined {
  const key = readText(environment, 'MERINO_SECRET_KEY');
  // The value is never echoed: it is the key itself.
  if (key !== undefined && key.length < 16) throw new SettingsError('MERINO_SECRET_KEY', 'must be at least 16 characters');
  return key;
}

/** An IPv4 or IPv6 address, optionally with a /prefix: only these characters, checked again by Fastify's proxy-addr. */
const PROXY_ADDRESS_SHAPE = /^[0-9A-Fa-f:.]{2,45}(?:\/\d{1,3})?$/;

/** TRUST_PROXY: true or false, a hop count, or a comma-separated list of proxy addresses and CIDR ranges. */
function readTrustProxy(environment: Environment): boolean | number | string[] {
  const raw = readText(environment, 'TRUST_PROXY');
  if (raw === undefined) return false;
  const lower = raw.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const addresses = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const wrong = addresses.find((address) => !PROXY_ADDRESS_SHAPE.test(address));
  if (wrong !== undefined || addresses.length === 0) {
    throw new SettingsError(
      'TRUST_PROXY',
      `expected true, false, a hop count or proxy addresses such as 10.0.0.1,10.1.0.0/16${wrong === undefined ? '' : `, got "${wrong}"`}`,
    );
  }
  return addresses;
}

function readHost(environment: Environment): string {
  const host = readText(environment, 'HOST') ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new SettingsError('HOST', `"${host}" is not a host name or address`);
  return host;
}

/** OUTBOUND_ALLOWED_HOSTS: bare host names or addresses (`kb.internal`, `10.0.0.5`, `::1`), no scheme, port or path. */
function readOutboundAllowedHosts(environment: Environment): string[] {
  const hosts = readList(environment, 'OUTBOUND_ALLOWED_HOSTS') ?? [];
  const wrong = hosts.find((host) => !/^[A-Za-z0-9.:-]+$/.test(host) || host.split(':').length === 2);
  if (wrong !== undefined)
    throw new SettingsError('OUTBOUND_ALLOWED_HOSTS', `"${wrong}" is not a host name or address (give no scheme, port or path)`);
  return hosts.map((host) => host.toLowerCase());
}

function readList(environment: Environment, variable: string): string[] | undefined {
  const raw = readText(environment, variable);
  return raw === undefined
    ? undefined
    : raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
}

/** An origin as browsers send it: scheme, host and optional port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

function readCorsOrigins(environment: Environment): string[] {
  const origins = readList(environment, 'CORS_ORIGINS') ?? [];
  const wrong = origins.find((origin) => !isOrigin(origin));
  if (wrong !== undefined)
    throw new SettingsError('CORS_ORIGINS', `"${wrong}" is not an origin such as https://app.example.org (no path, no trailing slash)`);
  return origins;
}

/** CSP source expressions for frame-ancestors: 'self', 'none', or origins, optionally with a `*.` wildcard host. */
function readFrameAncestors(environment: Environment): string[] {
  const sources = readList(environment, 'FRAME_ANCESTORS') ?? ["'self'"];
  for (const source of sources) {
    const keyword = source === "'self'" || source === "'none'";
    if (!keyword && !isOrigin(source.replace('://*.', '://wildcard.'))) {
      throw new SettingsError('FRAME_ANCESTORS', `"${source}" is not 'self', 'none' or an origin such as https://lms.example.org`);
    }
  }
  if (sources.includes("'none'") && sources.length > 1)
    throw new SettingsError('FRAME_ANCESTORS', "'none' cannot be combined with other sources");
  return sources;
}

function readAdminEmail(environment: Environment): string | undefined {
  const email = readText(environment, 'MERINO_ADMIN_EMAIL');
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new SettingsError('MERINO_ADMIN_EMAIL', `"${email}" is not an email address`);
  }
  return email?.toLowerCase();
}

export function loadSettings(environment: Environment = process.env): Settings {
  const passwordMinimumLength = readInteger(environment, 'PASSWORD_MIN_LENGTH', { defaultValue: 8, minimum: 6, maximum: 128 });
  const adminPassword = readText(environment, 'MERINO_ADMIN_PASSWORD');
  if (adminPassword !== undefined && adminPassword.length < passwordMinimumLength) {
    throw new SettingsError('MERINO_ADMIN_PASSWORD', `must be at least ${passwordMinimumLength} characters`);
  }
  return {
    host: readHost(environment),
    port: readInteger(environment, 'PORT', { defaultValue: 9099, minimum: 0, maximum: 65535 }),
    dataDirectory: path.resolve(readText(environment, 'DATA_DIR') ?? './data'),
    databaseUrl: readDatabaseUrl(environment),
    logLevel: readLogLevel(environment),
    adminEmail: readAdminEmail(environment),
    adminPassword,
    sessionTtlHours: readInteger(environment, 'SESSION_TTL_HOURS', { defaultValue: 168, minimum: 1, maximum: 8760 }),
    passwordMinimumLength,
    bodyLimitBytes: readInteger(environment, 'BODY_LIMIT_BYTES', { defaultValue: 1_048_576, minimum: 1024, maximum: 104_857_600 }),
    jsonDepthMaximum: readInteger(environment, 'JSON_DEPTH_MAX', { defaultValue: 64, minimum: 4, maximum: 1_000 }),
    pageSizeMaximum: readInteger(environment, 'PAGE_SIZE_MAX', { defaultValue: 200, minimum: 1, maximum: 10_000 }),
    shutdownTimeoutMilliseconds: readInteger(environment, 'SHUTDOWN_TIMEOUT_MS', { defaultValue: 10_000, minimum: 0, maximum: 600_000 }),
    databasePoolSize: readInteger(environment, 'DATABASE_POOL_SIZE', { defaultValue: 10, minimum: 1, maximum: 500 }),
    fileUploadMaxBytes: readInteger(environment, 'FILE_UPLOAD_MAX_BYTES', {
      defaultValue: 10_485_760,
      minimum: 1024,
      maximum: 104_857_600,
    }),
    kbUploadMaxBytes: readInteger(environment, 'KB_UPLOAD_MAX_BYTES', { defaultValue: 52_428_800, minimum: 1024, maximum: 1_073_741_824 }),
    ingestionPollMilliseconds: readInteger(environment, 'INGESTION_POLL_MS', { defaultValue: 500, minimum: 10, maximum: 600_000 }),
    ingestionLeaseMilliseconds: readInteger(environment, 'INGESTION_LEASE_MS', {
      defaultValue: 60_000,
      minimum: 1_000,
      maximum: 86_400_000,
    }),
    ingestionAttemptsMaximum: readInteger(environment, 'INGESTION_ATTEMPTS_MAX', { defaultValue: 3, minimum: 1, maximum: 100 }),
    ingestionWorkerHeapMegabytes: readInteger(environment, 'INGESTION_WORKER_HEAP_MB', { defaultValue: 512, minimum: 16, maximum: 16_384 }),
    ingestionWorkerResidentMegabytes: readInteger(environment, 'INGESTION_WORKER_RSS_MB', {
      defaultValue: 1_024,
      minimum: 64,
      maximum: 65_536,
    }),
    ingestionWorkerTimeoutMilliseconds: readInteger(environment, 'INGESTION_WORKER_TIMEOUT_MS', {
      defaultValue: 120_000,
      minimum: 100,
      maximum: 3_600_000,
    }),
    ingestionChunksMax: readInteger(environment, 'INGESTION_CHUNKS_MAX', { defaultValue: 10_000, minimum: 1, maximum: 1_000_000 }),
    ingestionZipPartMaxBytes: readInteger(environment, 'INGESTION_ZIP_PART_MAX_BYTES', {
      defaultValue: 67_108_864,
      minimum: 1024,
      maximum: 1_073_741_824,
    }),
    ingestionZipTotalMaxBytes: readInteger(environment, 'INGESTION_ZIP_TOTAL_MAX_BYTES', {
      defaultValue: 134_217_728,
      minimum: 1024,
      maximum: 2_147_483_647,
    }),
    ingestionPdfInflatedMaxBytes: readInteger(environment, 'INGESTION_PDF_INFLATED_MAX_BYTES', {
      defaultValue: 268_435_456,
      minimum: 1024,
      maximum: 4_294_967_296,
    }),
    uploadLeftoverGraceMilliseconds: readInteger(environment, 'UPLOAD_LEFTOVER_GRACE_MS', {
      defaultValue: 3_600_000,
      minimum: 0,
      maximum: 2_592_000_000,
    }),
    kbJsonBodyMaxBytes: readInteger(environment, 'KB_JSON_BODY_MAX_BYTES', {
      defaultValue: 10_485_760,
      minimum: 1024,
      maximum: 104_857_600,
    }),
    secretKey: readSecretKey(environment),
    openaiApiKey: readText(environment, 'OPENAI_API_KEY'),
    openaiBaseUrl: readBaseUrl(environment, 'OPENAI_BASE_URL'),
    ollamaBaseUrl: readBaseUrl(environment, 'OLLAMA_BASE_URL') ?? 'http://127.0.0.1:11434',
    toolTimeoutMilliseconds: readInteger(environment, 'TOOL_TIMEOUT_MS', { defaultValue: 10_000, minimum: 1, maximum: 600_000 }),
    embeddingTimeoutMilliseconds: readInteger(environment, 'EMBEDDING_TIMEOUT_MS', { defaultValue: 60_000, minimum: 1, maximum: 600_000 }),
    embeddingBatchSize: readInteger(environment, 'EMBEDDING_BATCH_SIZE', { defaultValue: 64, minimum: 1, maximum: 2048 }),
    kbServerTimeoutMilliseconds: readInteger(environment, 'KB_SERVER_TIMEOUT_MS', { defaultValue: 10_000, minimum: 1, maximum: 600_000 }),
    queryRewriteTimeoutMilliseconds: readInteger(environment, 'QUERY_REWRITE_TIMEOUT_MS', {
      defaultValue: 5_000,
      minimum: 1,
      maximum: 600_000,
    }),
    kbJsonDocumentsMaximum: readInteger(environment, 'KB_JSON_DOCUMENTS_MAX', { defaultValue: 100, minimum: 1, maximum: 10_000 }),
    upstreamTimeoutMilliseconds: readInteger(environment, 'UPSTREAM_TIMEOUT_MS', { defaultValue: 120_000, minimum: 1, maximum: 3_600_000 }),
    toolLoopIterations: readInteger(environment, 'TOOL_LOOP_ITERATIONS', { defaultValue: 5, minimum: 1, maximum: 100 }),
    toolLoopIterationsMaximum: readInteger(environment, 'TOOL_LOOP_ITERATIONS_MAX', { defaultValue: 10, minimum: 1, maximum: 100 }),
    toolCallTimeoutMilliseconds: readInteger(environment, 'TOOL_CALL_TIMEOUT_MS', { defaultValue: 30_000, minimum: 1, maximum: 600_000 }),
    toolCallTimeoutMaximumMilliseconds: readInteger(environment, 'TOOL_CALL_TIMEOUT_MAX_MS', {
      defaultValue: 120_000,
      minimum: 1,
      maximum: 600_000,
    }),
    toolLoopTotalMilliseconds: readInteger(environment, 'TOOL_LOOP_TOTAL_MS', { defaultValue: 180_000, minimum: 1, maximum: 3_600_000 }),
    toolLoopTotalMaximumMilliseconds: readInteger(environment, 'TOOL_LOOP_TOTAL_MAX_MS', {
      defaultValue: 600_000,
      minimum: 1,
      maximum: 3_600_000,
    }),
    toolIdenticalCallsMaximum: readInteger(environment, 'TOOL_IDENTICAL_CALLS_MAX', { defaultValue: 2, minimum: 1, maximum: 100 }),
    toolResultCharactersMaximum: readInteger(environment, 'TOOL_RESULT_CHARS_MAX', {
      defaultValue: 20_000,
      minimum: 100,
      maximum: 1_000_000,
    }),
    openMeteoGeocodingUrl: readBaseUrl(environment, 'OPEN_METEO_GEOCODING_URL') ?? 'https://geocoding-api.open-meteo.com/v1/search',
    openMeteoForecastUrl: readBaseUrl(environment, 'OPEN_METEO_FORECAST_URL') ?? 'https://api.open-meteo.com/v1/forecast',
    moodleApiUrl: readBaseUrl(environment, 'MOODLE_API_URL'),
    moodleToken: readText(environment, 'MOODLE_TOKEN'),
    integrationTimeoutMilliseconds: readInteger(environment, 'INTEGRATION_TIMEOUT_MS', {
      defaultValue: 10_000,
      minimum: 1,
      maximum: 600_000,
    }),
    outboundAllowedHosts: readOutboundAllowedHosts(environment),
    trustForwardedUserHeaders: readBoolean(environment, 'TRUST_FORWARDED_USER_HEADERS', false),
    trustProxy: readTrustProxy(environment),
    loginFailuresPerAccountMaximum: readInteger(environment, 'LOGIN_FAILURES_PER_ACCOUNT_MAX', {
      defaultValue: 10,
      minimum: 1,
      maximum: 10_000,
    }),
    loginFailuresPerAddressMaximum: readInteger(environment, 'LOGIN_FAILURES_PER_ADDRESS_MAX', {
      defaultValue: 100,
      minimum: 1,
      maximum: 1_000_000,
    }),
    loginFailureWindowSeconds: readInteger(environment, 'LOGIN_FAILURE_WINDOW_SECONDS', { defaultValue: 900, minimum: 1, maximum: 86_400 }),
    chatRequestsPerUserMaximum: readInteger(environment, 'CHAT_REQUESTS_PER_USER_MAX', {
      defaultValue: 600,
      minimum: 1,
      maximum: 1_000_000,
    }),
    chatRequestsPerApiKeyMaximum: readInteger(environment, 'CHAT_REQUESTS_PER_API_KEY_MAX', {
      defaultValue: 600,
      minimum: 1,
      maximum: 1_000_000,
    }),
    chatRateWindowSeconds: readInteger(environment, 'CHAT_RATE_WINDOW_SECONDS', { defaultValue: 60, minimum: 1, maximum: 86_400 }),
    assistantToolTimeoutMilliseconds: readInteger(environment, 'ASSISTANT_TOOL_TIMEOUT_MS', {
      defaultValue: 60_000,
      minimum: 1,
      maximum: 600_000,
    }),
    assistantToolCallsMaximum: readInteger(environment, 'ASSISTANT_TOOL_CALLS_MAX', { defaultValue: 6, minimum: 1, maximum: 100 }),
    assistantToolTotalMilliseconds: readInteger(environment, 'ASSISTANT_TOOL_TOTAL_MS', {
      defaultValue: 120_000,
      minimum: 1,
      maximum: 3_600_000,
    }),
    assistantToolResultCharactersMaximum: readInteger(environment, 'ASSISTANT_TOOL_RESULT_CHARS_MAX', {
      defaultValue: 8_000,
      minimum: 100,
      maximum: 1_000_000,
    }),
    frameAncestors: readFrameAncestors(environment),
    corsOrigins: readCorsOrigins(environment),
  };
}
