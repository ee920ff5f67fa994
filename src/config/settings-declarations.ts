/**
 * Every setting Merino reads from the environment, declared once: variable, property, rule,
 * default and meaning. The Settings type, loadSettings and the README's settings table (checked
 * by test/readme-settings-table-matches-the-settings.test.ts) all come from this list, so a
 * setting cannot be documented with one default and read with another. Every limit the server
 * enforces is a named setting here. The list is in the README's order, which is also the order
 * the variables are read in.
 */
import path from 'node:path';
import {
  booleanSetting,
  folderSetting,
  integerSetting,
  isOrigin,
  readList,
  textSetting,
  urlSetting,
  type DefaultedSettingDeclaration,
  type SettingDeclaration,
} from './setting-declaration.js';
import { SettingsError } from './settings-error.js';
import { parseS3Url } from '../blobs/s3-location.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const HOST_SHAPE = /^[A-Za-z0-9.:-]+$/;

function readHost(raw: string): string {
  const host = raw.trim();
  if (!HOST_SHAPE.test(host)) throw new SettingsError('HOST', `"${host}" is not a host name or address`);
  return host;
}

function readDatabaseUrl(raw: string): string {
  const text = raw.trim();
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    // The value may hold a password, so it is never echoed back.
    throw new SettingsError('DATABASE_URL', 'expected a URL such as postgres://user:password@host:5432/merino');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new SettingsError('DATABASE_URL', `only postgres:// URLs are supported, got ${parsed.protocol}//`);
  }
  return text;
}

function readStorageUrl(raw: string): string {
  const text = raw.trim();
  if (text === 'local' || text === 'postgres') return text;
  try {
    parseS3Url(text);
  } catch (error) {
    throw new SettingsError('STORAGE_URL', `must be local, postgres or an s3:// URL: ${(error as Error).message}`);
  }
  return text;
}

function readAdminEmail(raw: string): string {
  const email = raw.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new SettingsError('MERINO_ADMIN_EMAIL', `"${email}" is not an email address`);
  return email.toLowerCase();
}

function readSecretKey(raw: string): string {
  const key = raw.trim();
  // The value is never echoed: it is the key itself.
  if (key.length < 16) throw new SettingsError('MERINO_SECRET_KEY', 'must be at least 16 characters');
  return key;
}

function readLogLevel(raw: string): LogLevel {
  const level = raw.trim();
  const known = LOG_LEVELS.find((candidate) => candidate === level);
  if (known === undefined) throw new SettingsError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return known;
}

/** The providers the `banana_img` connector generates images with. */
export const IMAGE_PROVIDERS = ['openai', 'gemini'] as const;

function readImageProvider(raw: string): (typeof IMAGE_PROVIDERS)[number] {
  const provider = raw.trim();
  const known = IMAGE_PROVIDERS.find((candidate) => candidate === provider);
  if (known === undefined) throw new SettingsError('IMAGE_PROVIDER', `expected one of ${IMAGE_PROVIDERS.join(', ')}, got "${provider}"`);
  return known;
}

/** An IPv4 or IPv6 address, optionally with a /prefix: only these characters, checked again by Fastify's proxy-addr. */
const PROXY_ADDRESS_SHAPE = /^[0-9A-Fa-f:.]{2,45}(?:\/\d{1,3})?$/;

/** TRUST_PROXY: true or false, a hop count, or a comma-separated list of proxy addresses and CIDR ranges. */
function readTrustProxy(raw: string): boolean | number | string[] {
  const text = raw.trim();
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (/^\d{1,2}$/.test(text)) return Number(text);
  const addresses = readList(text);
  const wrong = addresses.find((address) => !PROXY_ADDRESS_SHAPE.test(address));
  if (wrong !== undefined || addresses.length === 0) {
    throw new SettingsError(
      'TRUST_PROXY',
      `expected true, false, a hop count or proxy addresses such as 10.0.0.1,10.1.0.0/16${wrong === undefined ? '' : `, got "${wrong}"`}`,
    );
  }
  return addresses;
}

/** OUTBOUND_ALLOWED_HOSTS: bare host names or addresses (`kb.internal`, `10.0.0.5`, `::1`), no scheme, port or path. */
function readOutboundAllowedHosts(raw: string): string[] {
  const hosts = readList(raw);
  // One colon means host:port; addresses with more are IPv6.
  const wrong = hosts.find((host) => !HOST_SHAPE.test(host) || host.split(':').length === 2);
  if (wrong !== undefined)
    throw new SettingsError('OUTBOUND_ALLOWED_HOSTS', `"${wrong}" is not a host name or address (give no scheme, port or path)`);
  return hosts.map((host) => host.toLowerCase());
}

function readCorsOrigins(raw: string): string[] {
  const origins = readList(raw);
  const wrong = origins.find((origin) => !isOrigin(origin));
  if (wrong !== undefined)
    throw new SettingsError('CORS_ORIGINS', `"${wrong}" is not an origin such as https://app.example.org (no path, no trailing slash)`);
  return origins;
}

/** CSP source expressions for frame-ancestors: 'self', 'none', or origins, optionally with a `*.` wildcard host. */
function readFrameAncestors(raw: string): string[] {
  const sources = readList(raw);
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

export const SETTINGS_DECLARATIONS = {
  host: { variable: 'HOST', meaning: 'address to listen on', defaultText: '127.0.0.1', read: readHost },
  port: integerSetting({
    variable: 'PORT',
    meaning: 'port to listen on (`0` picks a free one)',
    defaultValue: 9099,
    minimum: 0,
    maximum: 65535,
  }),
  dataDirectory: folderSetting({
    variable: 'DATA_DIR',
    meaning: 'data folder; the SQLite file `merino.sqlite` lives here',
    defaultText: './data',
  }),
  webAppDirectory: folderSetting({
    variable: 'WEB_APP_DIR',
    meaning: 'the built web app (`npm run build:web`) served at `/`; when it holds no `app.html`, only the API is served',
    defaultText: './web/build',
  }),
  /** Undefined means `DATA_DIR/plugins` (pluginsDirectoryOf). */
  pluginsDirectory: {
    variable: 'PLUGINS_DIR',
    meaning:
      "the installation's own plugins, loaded at start with no rebuild: plain JavaScript modules in its `tools/`, `connectors/` and `prompt-processors/` folders (docs/plugins.md); a broken one is logged and skipped",
    documentedDefault: '`DATA_DIR/plugins`',
    read: (raw: string) => path.resolve(raw.trim()),
  },
  /** postgres://… selects PostgreSQL; undefined means the embedded SQLite file in dataDirectory. */
  databaseUrl: {
    variable: 'DATABASE_URL',
    meaning: '`postgres://user:password@host:5432/db` selects PostgreSQL instead of SQLite',
    read: readDatabaseUrl,
  },
  databasePoolSize: integerSetting({
    variable: 'DATABASE_POOL_SIZE',
    meaning: 'PostgreSQL connections per process',
    defaultValue: 10,
    minimum: 1,
    maximum: 500,
  }),
  postgresPreparedStatementsMaximum: integerSetting({
    variable: 'POSTGRES_PREPARED_STATEMENTS_MAXIMUM',
    meaning:
      "PostgreSQL statements each connection keeps prepared, for the queries run again and again (every request's, and each batch insert's), which PostgreSQL then need not parse and plan anew each time (0 prepares none, for a pooler that cannot keep them, such as PgBouncer in transaction mode before 1.21)",
    defaultValue: 128,
    minimum: 0,
    maximum: 1_024,
  }),
  sqliteStatementCacheSize: integerSetting({
    variable: 'SQLITE_STATEMENT_CACHE_SIZE',
    meaning: 'SQLite prepared statements kept per process, by SQL text (0 prepares every query anew)',
    defaultValue: 256,
    minimum: 0,
    maximum: 100_000,
  }),
  sqliteCacheMegabytes: integerSetting({
    variable: 'SQLITE_CACHE_MB',
    meaning:
      "MiB of SQLite's page cache in a process (filled only as pages are read); an ingestion batch's index writes spill to the WAL before their commit when it is smaller than the pages they change",
    defaultValue: 64,
    minimum: 1,
    maximum: 65_536,
  }),
  sqliteCheckpointIntervalMilliseconds: integerSetting({
    variable: 'SQLITE_CHECKPOINT_INTERVAL_MS',
    meaning:
      "how often a thread of the server's own copies SQLite's write-ahead log into the database file (a passive checkpoint, which waits for no one), so that commits on the event loop do not wait for the copy and the disk; 0 leaves checkpoints to SQLite, inside the commits",
    defaultValue: 250,
    minimum: 0,
    maximum: 60_000,
  }),
  sqliteBackstopCheckpointPages: integerSetting({
    variable: 'SQLITE_BACKSTOP_CHECKPOINT_PAGES',
    meaning:
      "with the checkpoint thread running, the write-ahead log's size in pages at which the event loop's connection checkpoints after a commit itself (the thread fell behind, or readers kept the log from starting over): the log's bound on disk. Without the thread SQLite's own 1,000 applies",
    defaultValue: 10_000,
    minimum: 1_000,
    maximum: 1_000_000,
  }),
  apiKeyCacheMilliseconds: integerSetting({
    variable: 'API_KEY_CACHE_MS',
    meaning:
      'how long a process answers an API key from memory; a key deleted or a user disabled through another process stops working within this window (0 reads the store on every request)',
    defaultValue: 5_000,
    minimum: 0,
    maximum: 60_000,
  }),
  hotReadCacheMilliseconds: integerSetting({
    variable: 'HOT_READ_CACHE_MS',
    meaning:
      "how long a process keeps an assistant owner's identity and an organization's provider settings for runs; changes made through another process reach runs within this window (0 turns these caches off)",
    defaultValue: 5_000,
    minimum: 0,
    maximum: 60_000,
  }),
  hotReadCacheEntriesMaximum: integerSetting({
    variable: 'HOT_READ_CACHE_ENTRIES',
    meaning: 'entries each of those per-process caches holds at most; the oldest is dropped past it',
    defaultValue: 10_000,
    minimum: 1,
    maximum: 1_000_000,
  }),
  idleMemoryReleaseMilliseconds: integerSetting({
    variable: 'IDLE_MEMORY_RELEASE_MS',
    meaning:
      'after this long with no request in flight after a busy spell, full garbage collections run once so memory the load left goes back to the system; they also drop compiled code (the next thousands of requests cost more CPU), hence the long wait; 0 never does',
    defaultValue: 30_000,
    minimum: 0,
    maximum: 3_600_000,
  }),
  heapGrowthPercent: integerSetting({
    variable: 'HEAP_GROWTH_PERCENT',
    meaning:
      "how far past what is live the heap may grow before V8's next full collection, in percent; lower keeps memory down under load at the cost of more frequent collections; 0 leaves it to V8",
    defaultValue: 50,
    minimum: 0,
    maximum: 1_000,
  }),
  fileTextCacheCharactersMaximum: integerSetting({
    variable: 'FILE_TEXT_CACHE_CHARACTERS',
    meaning:
      "characters of stored files' text a process keeps for the single-file tool, keyed by each file's SHA-256 so an entry is never stale; the least recently used go past it (0 reads the file on every request)",
    defaultValue: 4_000_000,
    minimum: 0,
    maximum: 1_000_000_000,
  }),
  promptJsonCacheCharactersMaximum: integerSetting({
    variable: 'PROMPT_JSON_CACHE_CHARACTERS',
    meaning:
      "characters of long prompt pieces (the system prompt, a template's text, a tool's value such as a file's text; never a user's text) a process keeps with their JSON-escaped form, so a provider request does not escape them again; the least recently used go past it (0 escapes every prompt whole)",
    defaultValue: 4_000_000,
    minimum: 0,
    maximum: 1_000_000_000,
  }),
  filePreviewCharactersMaximum: integerSetting({
    variable: 'FILE_PREVIEW_CHARACTERS',
    meaning:
      "characters of a stored file `GET /api/files/{id}/text` returns for the files page's preview; a longer file is cut there and marked `truncated`",
    defaultValue: 20_000,
    minimum: 100,
    maximum: 1_000_000,
  }),
  runRecordWindowMilliseconds: integerSetting({
    variable: 'RUN_RECORD_WINDOW_MS',
    meaning:
      "how long a finished run's usage log and trace may wait to be written with other runs' in one transaction; a process killed with SIGKILL loses at most this window's records (0 writes each before its answer ends)",
    defaultValue: 50,
    minimum: 0,
    maximum: 5_000,
  }),
  runRecordBatchMaximum: integerSetting({
    variable: 'RUN_RECORD_BATCH_MAX',
    meaning: 'runs whose records are written at once, before the window ends, when that many are waiting',
    defaultValue: 500,
    minimum: 1,
    maximum: 10_000,
  }),
  usageRangeDaysMaximum: integerSetting({
    variable: 'USAGE_RANGE_DAYS_MAX',
    meaning: "the most days one usage report (`GET /api/usage`) or an assistant's insights may span, from and to included",
    defaultValue: 366,
    minimum: 1,
    maximum: 3_660,
  }),
  usageGroupsMaximum: integerSetting({
    variable: 'USAGE_GROUPS_MAX',
    meaning: 'the most groups (users, assistants, models) one usage report lists; the rest are counted in its totals',
    defaultValue: 1_000,
    minimum: 1,
    maximum: 100_000,
  }),
  quotaReservationSeconds: integerSetting({
    variable: 'QUOTA_RESERVATION_SECONDS',
    meaning:
      'how long a run admitted under a token or cost limit holds its reservation if it is never settled (its process was killed); keep it longer than the longest run, whose reservation otherwise stops counting while it runs (docs/quotas.md)',
    defaultValue: 900,
    minimum: 10,
    maximum: 86_400,
  }),
  /** Undefined when unset: `postgres` with DATABASE_URL, `local` without (see src/blobs/open-blob-storage.ts). */
  storageUrl: {
    variable: 'STORAGE_URL',
    meaning:
      'where uploaded files and knowledge-base originals live: `local` (files under `DATA_DIR`), `postgres` (chunks in the database) or `s3://bucket/prefix?endpoint=…&region=…&path_style=true` (credentials from `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`); see docs/blob-storage.md',
    documentedDefault: '`postgres` with `DATABASE_URL`, else `local`',
    read: readStorageUrl,
  },
  storageChunkBytes: integerSetting({
    variable: 'STORAGE_CHUNK_BYTES',
    meaning: 'size of each database row a blob is split into by the `postgres` storage driver (1 MiB)',
    defaultValue: 1_048_576,
    minimum: 65_536,
    maximum: 67_108_864,
  }),
  storageS3PartBytes: integerSetting({
    variable: 'STORAGE_S3_PART_BYTES',
    meaning: 'part size of multipart uploads to S3 storage; a larger file is sent in parts (8 MiB; S3 needs at least 5 MiB)',
    defaultValue: 8_388_608,
    minimum: 5_242_880,
    maximum: 536_870_912,
  }),
  storageS3PartsInFlight: integerSetting({
    variable: 'STORAGE_S3_PARTS_IN_FLIGHT',
    meaning: 'how many parts of one upload are sent to S3 storage at once (each is held in memory)',
    defaultValue: 4,
    minimum: 1,
    maximum: 64,
  }),
  storageS3TimeoutMilliseconds: integerSetting({
    variable: 'STORAGE_S3_TIMEOUT_MS',
    meaning: 'how long a request to S3 storage may wait for a connection or for its next byte before it fails',
    defaultValue: 30_000,
    minimum: 100,
    maximum: 600_000,
  }),
  /** Undefined when unset: the admin bootstrap then uses its own default address. */
  adminEmail: {
    variable: 'MERINO_ADMIN_EMAIL',
    meaning: 'email of the first administrator, created on an empty store',
    documentedDefault: '`admin@merino.local`',
    read: readAdminEmail,
  },
  /** Checked against passwordLengthMinimum once both are read (see loadSettings). */
  adminPassword: textSetting({
    variable: 'MERINO_ADMIN_PASSWORD',
    meaning: 'their password; when unset, one is generated and printed once to the console',
    documentedDefault: 'generated',
  }),
  sessionTtlHours: integerSetting({
    variable: 'SESSION_TTL_HOURS',
    meaning: 'how long a login session lasts',
    defaultValue: 168,
    minimum: 1,
    maximum: 8760,
  }),
  passwordLengthMinimum: integerSetting({
    variable: 'PASSWORD_MIN_LENGTH',
    meaning: 'shortest password accepted',
    defaultValue: 8,
    minimum: 6,
    maximum: 128,
  }),
  passwordHashCost: integerSetting({
    variable: 'PASSWORD_HASH_COST',
    meaning:
      "scrypt's cost for new password hashes, as a power of two (N = 2^cost; 15 takes 32 MB and about 0.1 s per hash); a hash made at another cost is stored again at its next login",
    defaultValue: 15,
    minimum: 10,
    maximum: 17,
  }),
  bodyBytesMaximum: integerSetting({
    variable: 'BODY_LIMIT_BYTES',
    meaning: 'largest request body',
    defaultValue: 1_048_576,
    minimum: 1024,
    maximum: 104_857_600,
  }),
  /** Deeper bodies are refused before any code walks them. */
  jsonDepthMaximum: integerSetting({
    variable: 'JSON_DEPTH_MAX',
    meaning: 'deepest nesting a JSON body may have',
    defaultValue: 64,
    minimum: 4,
    maximum: 1_000,
  }),
  pageSizeMaximum: integerSetting({
    variable: 'PAGE_SIZE_MAX',
    meaning: 'largest `limit` a list accepts',
    defaultValue: 200,
    minimum: 1,
    maximum: 10_000,
  }),
  shutdownTimeoutMilliseconds: integerSetting({
    variable: 'SHUTDOWN_TIMEOUT_MS',
    meaning: 'how long a graceful shutdown may take before the process exits',
    defaultValue: 10_000,
    minimum: 0,
    maximum: 600_000,
  }),
  shutdownDrainDelayMilliseconds: integerSetting({
    variable: 'SHUTDOWN_DRAIN_DELAY_MS',
    meaning:
      'how long a stopping process keeps serving with `/readyz` failing before it closes its listener, so a load balancer polling readiness stops sending it requests first (counts towards `SHUTDOWN_TIMEOUT_MS`)',
    defaultValue: 0,
    minimum: 0,
    maximum: 300_000,
  }),
  shutdownStreamGraceMilliseconds: integerSetting({
    variable: 'SHUTDOWN_STREAM_GRACE_MS',
    meaning:
      'how long completions still streaming when the listener closes may go on before they end with a `server_shutting_down` error chunk; they end 1 s before `SHUTDOWN_TIMEOUT_MS` at the latest',
    defaultValue: 7_000,
    minimum: 0,
    maximum: 600_000,
  }),
  fileUploadBytesMaximum: integerSetting({
    variable: 'FILE_UPLOAD_MAX_BYTES',
    meaning: 'largest file `POST /api/files` accepts (10 MiB)',
    defaultValue: 10_485_760,
    minimum: 1024,
    maximum: 104_857_600,
  }),
  knowledgeUploadBytesMaximum: integerSetting({
    variable: 'KB_UPLOAD_MAX_BYTES',
    meaning: 'largest document `POST /api/knowledge-bases/{id}/documents` accepts (50 MiB)',
    defaultValue: 52_428_800,
    minimum: 1024,
    maximum: 1_073_741_824,
  }),
  ingestionInWeb: booleanSetting({
    variable: 'INGESTION_IN_WEB',
    meaning:
      'whether `merino serve` also runs an ingestion runner; set `false` when separate `merino worker` processes ingest (both claim jobs under the same leases)',
    defaultValue: true,
  }),
  ingestionPollMilliseconds: integerSetting({
    variable: 'INGESTION_POLL_MS',
    meaning:
      'how often an ingestion runner looks for pending document jobs, whether or not it holds some (it also looks at once when a batch of its jobs ends)',
    defaultValue: 500,
    minimum: 10,
    maximum: 600_000,
  }),
  jobEventPollMilliseconds: integerSetting({
    variable: 'JOB_EVENTS_POLL_MS',
    meaning:
      "how often a knowledge base's job event stream (`GET /api/knowledge-bases/{id}/jobs/events`) reads the store for job changes; one read serves every stream of that knowledge base in the process",
    defaultValue: 500,
    minimum: 10,
    maximum: 60_000,
  }),
  jobEventStreamsPerUserMaximum: integerSetting({
    variable: 'JOB_EVENT_STREAMS_PER_USER_MAX',
    meaning: 'how many job event streams one user may hold open at once in one process; one past it gets 429 `job_event_streams_limit`',
    defaultValue: 10,
    minimum: 1,
    maximum: 1_000,
  }),
  ingestionLeaseMilliseconds: integerSetting({
    variable: 'INGESTION_LEASE_MS',
    meaning:
      "how long a claimed job stays its runner's without renewal (renewed every third of it); past it, another process may take the job over. A restarted server takes back at once the jobs of its own dead processes on the same host",
    defaultValue: 60_000,
    minimum: 1_000,
    maximum: 86_400_000,
  }),
  ingestionAttemptsMaximum: integerSetting({
    variable: 'INGESTION_ATTEMPTS_MAX',
    meaning:
      'how many times a job is started before a run cut short by a stopped server fails it ("the server stopped N times while processing this document") instead of starting it again; a retry starts the count afresh',
    defaultValue: 3,
    minimum: 1,
    maximum: 100,
  }),
  ingestionJobsInFlightMaximum: integerSetting({
    variable: 'INGESTION_JOBS_IN_FLIGHT',
    meaning:
      "how many ingestion jobs one runner works on at once (each claimed under its own lease); their extraction and chunking share the runner's worker threads. A runner holding fewer, or fewer than `INGESTION_TEXT_CLAIM_BATCH_MAX`, may still claim a whole batch of small texts",
    defaultValue: 64,
    minimum: 1,
    maximum: 1_024,
  }),
  ingestionClaimBatchMaximum: integerSetting({
    variable: 'INGESTION_CLAIM_BATCH_MAX',
    meaning:
      'most ingestion jobs one claim takes (in one statement); the jobs claimed together are read, extracted and finished together, and one that fails fails alone',
    defaultValue: 32,
    minimum: 1,
    maximum: 1_000,
  }),
  ingestionTextClaimBatchMaximum: integerSetting({
    variable: 'INGESTION_TEXT_CLAIM_BATCH_MAX',
    meaning:
      'most small text documents (plain text and Markdown of 64 KiB or less, JSON texts included) one claim takes when the oldest waiting job is one, even past `INGESTION_JOBS_IN_FLIGHT`: none holds its batch long, and larger batches write the search index in fewer transactions. A runner holding fewer jobs than this may claim another such batch, so one batch is written while the next is analysed',
    defaultValue: 256,
    minimum: 1,
    maximum: 1_000,
  }),
  ingestionBytesInFlightMaximum: integerSetting({
    variable: 'INGESTION_BYTES_IN_FLIGHT',
    meaning:
      'most bytes of documents the jobs one runner holds may add up to (64 MiB); a runner holding nothing still takes the next job, however large',
    defaultValue: 67_108_864,
    minimum: 1,
    maximum: 2_147_483_647,
  }),
  ingestionWorkerThreads: integerSetting({
    variable: 'INGESTION_WORKER_THREADS',
    meaning:
      'how many long-lived worker threads one ingestion runner extracts and chunks documents on, off the event loop; they start when first needed and end when the server stops',
    defaultValue: 2,
    minimum: 1,
    maximum: 64,
  }),
  ingestionWorkerDocumentsMaximum: integerSetting({
    variable: 'INGESTION_WORKER_DOCUMENTS_MAX',
    meaning:
      'how many documents a worker thread processes before it is replaced by a fresh one (a message of small texts counts the share of 64 KiB its texts fill, one at most; a thread that breaks a budget is replaced at once)',
    defaultValue: 500,
    minimum: 1,
    maximum: 1_000_000,
  }),
  ingestionWorkerBatchMaximum: integerSetting({
    variable: 'INGESTION_WORKER_BATCH_MAX',
    meaning:
      'most small plain-text and Markdown documents (64 KiB or less each, JSON texts included) handed to a worker thread in one message; each still has its own budgets and outcome',
    defaultValue: 16,
    minimum: 1,
    maximum: 1_000,
  }),
  ingestionWorkerHeapMegabytes: integerSetting({
    variable: 'INGESTION_WORKER_HEAP_MB',
    meaning:
      'heap cap (`resourceLimits`) of each worker thread that extracts and chunks documents off the event loop, one at a time; a document that needs more fails its job with `document_processing_failed` and the thread is replaced',
    defaultValue: 512,
    minimum: 16,
    maximum: 16_384,
  }),
  ingestionWorkerResidentMegabytes: integerSetting({
    variable: 'INGESTION_WORKER_RSS_MB',
    meaning:
      "how much the process's resident memory may grow while a worker processes one document (covers buffers the heap cap does not count); past it the worker is stopped and the job fails. When several threads were busy, their documents are run again alone first, so only the one that grew it fails",
    defaultValue: 1_024,
    minimum: 64,
    maximum: 65_536,
  }),
  ingestionWorkerTimeoutMilliseconds: integerSetting({
    variable: 'INGESTION_WORKER_TIMEOUT_MS',
    meaning: 'how long extracting and chunking one document may take; past it the worker is stopped and the job fails',
    defaultValue: 120_000,
    minimum: 100,
    maximum: 3_600_000,
  }),
  ingestionChunksMaximum: integerSetting({
    variable: 'INGESTION_CHUNKS_MAX',
    meaning:
      "most chunks indexed from one document; one that splits into more fails with a message naming the limit (replacing a document's chunks is one transaction, which every SQLite query waits for)",
    defaultValue: 10_000,
    minimum: 1,
    maximum: 1_000_000,
  }),
  ingestionZipPartBytesMaximum: integerSetting({
    variable: 'INGESTION_ZIP_PART_MAX_BYTES',
    meaning: 'most bytes one XML part of a Word document may inflate to, counted while inflating, whatever the archive declares (64 MiB)',
    defaultValue: 67_108_864,
    minimum: 1024,
    maximum: 1_073_741_824,
  }),
  ingestionZipTotalBytesMaximum: integerSetting({
    variable: 'INGESTION_ZIP_TOTAL_MAX_BYTES',
    meaning: 'most bytes the XML parts of one Word document may inflate to together (128 MiB)',
    defaultValue: 134_217_728,
    minimum: 1024,
    maximum: 2_147_483_647,
  }),
  ingestionPdfInflatedBytesMaximum: integerSetting({
    variable: 'INGESTION_PDF_INFLATED_MAX_BYTES',
    meaning:
      "most bytes a PDF's compressed streams other than images may inflate to together, measured before pdf.js opens the file (256 MiB)",
    defaultValue: 268_435_456,
    minimum: 1024,
    maximum: 4_294_967_296,
  }),
  uploadLeftoverGraceMilliseconds: integerSetting({
    variable: 'UPLOAD_LEFTOVER_GRACE_MS',
    meaning:
      "how old the files an interrupted upload leaves (temporary `.upload-*.part` files, staged uploads, stored files without a row) must be before the leftover sweep removes them; younger ones may belong to another process's upload in progress",
    defaultValue: 3_600_000,
    minimum: 0,
    maximum: 2_592_000_000,
  }),
  uploadLeaseMilliseconds: integerSetting({
    variable: 'UPLOAD_LEASE_MS',
    meaning:
      'how long a knowledge-base document being uploaded stays its process\'s without renewal (renewed every third of it) before its job is queued; past it, or as soon as that process is gone from the same host, the leftover sweep marks the document failed with "the upload was interrupted"',
    defaultValue: 60_000,
    minimum: 1_000,
    maximum: 86_400_000,
  }),
  uploadSweepIntervalMilliseconds: integerSetting({
    variable: 'UPLOAD_SWEEP_INTERVAL_MS',
    meaning:
      'how often the fleet sweeps the leftovers of interrupted uploads while it runs (one process at a time, once per interval); every process also sweeps once at start-up',
    defaultValue: 600_000,
    minimum: 100,
    maximum: 86_400_000,
  }),
  knowledgeJsonBodyBytesMaximum: integerSetting({
    variable: 'KB_JSON_BODY_MAX_BYTES',
    meaning:
      'largest JSON body `POST /api/knowledge-bases/{id}/documents` reads (10 MiB); larger gets a 413 naming this limit; send large texts as file uploads',
    defaultValue: 10_485_760,
    minimum: 1024,
    maximum: 104_857_600,
  }),
  secretKey: {
    variable: 'MERINO_SECRET_KEY',
    meaning:
      'encrypts secrets at rest (16+ characters); unset, a key is generated once in `DATA_DIR/secret.key`. Required with `DATABASE_URL`: every process sharing one PostgreSQL must have the same key',
    documentedDefault: 'key file',
    read: readSecretKey,
  },
  openaiApiKey: textSetting({
    variable: 'OPENAI_API_KEY',
    meaning:
      "key for the `openai` connector when the assistant's organization sets none; sent only to `OPENAI_BASE_URL`, never to a base URL an organization sets",
  }),
  openaiBaseUrl: urlSetting({
    variable: 'OPENAI_BASE_URL',
    meaning: "any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama's `/v1`)",
    documentedDefault: 'OpenAI',
  }),
  ollamaBaseUrl: urlSetting({
    variable: 'OLLAMA_BASE_URL',
    meaning: 'Ollama for the `ollama` connector',
    defaultText: 'http://127.0.0.1:11434',
  }),
  anthropicApiKey: textSetting({
    variable: 'ANTHROPIC_API_KEY',
    meaning:
      "key for the `anthropic` connector when the assistant's organization sets none; sent only to `ANTHROPIC_BASE_URL`, never to a base URL an organization sets",
  }),
  anthropicBaseUrl: urlSetting({
    variable: 'ANTHROPIC_BASE_URL',
    meaning: "Anthropic's Messages API (or a server speaking it) for the `anthropic` connector, without `/v1`",
    documentedDefault: 'Anthropic',
  }),
  geminiApiKey: textSetting({
    variable: 'GEMINI_API_KEY',
    meaning:
      "key for the `gemini` connector when the assistant's organization sets none; sent only to `GEMINI_BASE_URL`, never to a base URL an organization sets",
  }),
  geminiBaseUrl: urlSetting({
    variable: 'GEMINI_BASE_URL',
    meaning: "Google's Gemini API (or a server speaking it) for the `gemini` connector, without the API version",
    documentedDefault: 'Google',
  }),
  imageProvider: {
    variable: 'IMAGE_PROVIDER',
    meaning:
      "which provider the `banana_img` connector generates images with when the assistant's organization chooses none: `openai` (the images API) or `gemini` (Gemini image models), each with its own key and URL",
    defaultText: 'openai',
    read: readImageProvider,
  },
  imageBytesMaximum: integerSetting({
    variable: 'IMAGE_MAX_BYTES',
    meaning: 'largest generated image the `banana_img` connector keeps (10 MiB); a larger one fails the request with 502 `image_too_large`',
    defaultValue: 10_485_760,
    minimum: 1024,
    maximum: 104_857_600,
  }),
  imageTimeoutMilliseconds: integerSetting({
    variable: 'IMAGE_TIMEOUT_MS',
    meaning: 'how long one image generation may take before the client gets a 504',
    defaultValue: 180_000,
    minimum: 1,
    maximum: 3_600_000,
  }),
  toolTimeoutMilliseconds: integerSetting({
    variable: 'TOOL_TIMEOUT_MS',
    meaning: 'how long one context tool may run before its placeholder is left empty',
    defaultValue: 10_000,
    minimum: 1,
    maximum: 600_000,
  }),
  upstreamTimeoutMilliseconds: integerSetting({
    variable: 'UPSTREAM_TIMEOUT_MS',
    meaning: 'how long a model call may take before the client gets a 504',
    defaultValue: 120_000,
    minimum: 1,
    maximum: 3_600_000,
  }),
  modelListCacheMilliseconds: integerSetting({
    variable: 'MODEL_LIST_CACHE_MS',
    meaning:
      "how long a process keeps the models a provider listed (its `/models`, Ollama's `/api/tags`) for the studio's Model list, and a provider's failure to list them (0 asks the provider every time)",
    defaultValue: 60_000,
    minimum: 0,
    maximum: 3_600_000,
  }),
  modelListTimeoutMilliseconds: integerSetting({
    variable: 'MODEL_LIST_TIMEOUT_MS',
    meaning: 'how long a provider may take to list its models before the Model list shows it as unavailable',
    defaultValue: 5_000,
    minimum: 1,
    maximum: 60_000,
  }),
  mcpToolListTimeoutMilliseconds: integerSetting({
    variable: 'MCP_TOOL_LIST_TIMEOUT_MS',
    meaning:
      "how long an organization's MCP server may take to connect and list its tools (docs/mcp-servers-as-tools.md); past it the studio shows the server as unavailable and an assistant is not offered its tools",
    defaultValue: 5_000,
    minimum: 1,
    maximum: 60_000,
  }),
  mcpToolListCacheMilliseconds: integerSetting({
    variable: 'MCP_TOOL_LIST_CACHE_MS',
    meaning: 'how long a process keeps the tools an MCP server listed (0 asks the server on every request); a failure is never kept',
    defaultValue: 60_000,
    minimum: 0,
    maximum: 3_600_000,
  }),
  mcpToolsPerServerMaximum: integerSetting({
    variable: 'MCP_TOOLS_PER_SERVER_MAX',
    meaning: "most tools Merino reads from one MCP server's list; the rest are not offered",
    defaultValue: 100,
    minimum: 1,
    maximum: 1_000,
  }),
  modelListTestConnectors: booleanSetting({
    variable: 'MODEL_LIST_TEST_CONNECTORS',
    meaning:
      'when `true`, every creator sees the test connectors (`bypass`: answers without a model) in the Model list; otherwise only system admins do',
    defaultValue: false,
  }),
  upstreamResponseBytesMaximum: integerSetting({
    variable: 'UPSTREAM_RESPONSE_MAX_BYTES',
    meaning:
      "largest answer a model provider may send to one call, streamed or whole (and any answer from an organization's URL); past it the call fails with 502 `upstream_error`, so a broken or hostile server cannot fill the process's memory",
    defaultValue: 67_108_864,
    minimum: 1_024,
    maximum: 1_073_741_824,
  }),
  embeddingTimeoutMilliseconds: integerSetting({
    variable: 'EMBEDDING_TIMEOUT_MS',
    meaning: 'how long one embeddings request (a batch of chunks, or a query) may take',
    defaultValue: 60_000,
    minimum: 1,
    maximum: 600_000,
  }),
  embeddingBatchSize: integerSetting({
    variable: 'EMBEDDING_BATCH_SIZE',
    meaning: 'chunks per embeddings request while ingesting',
    defaultValue: 64,
    minimum: 1,
    maximum: 2048,
  }),
  knowledgeServerTimeoutMilliseconds: integerSetting({
    variable: 'KB_SERVER_TIMEOUT_MS',
    meaning: "how long a query to an organization's external LAMB knowledge-base server may take",
    defaultValue: 10_000,
    minimum: 1,
    maximum: 600_000,
  }),
  /** The answer is read whole and parsed as JSON, so the bound is what one query may hold in memory. */
  knowledgeServerResponseBytesMaximum: integerSetting({
    variable: 'KB_SERVER_RESPONSE_MAX_BYTES',
    meaning:
      "largest answer an organization's knowledge-base server (`kb_server`) may send to one query (8 MiB); past it the query fails with `upstream_error` naming the host and this setting, so a broken or hostile server cannot fill the process's memory (also held to `UPSTREAM_RESPONSE_MAX_BYTES`)",
    defaultValue: 8_388_608,
    minimum: 1_024,
    maximum: 1_073_741_824,
  }),
  /** Each candidate's stored text is re-analysed per query, so this bounds a query's extra work (docs/knowledge-bases.md). */
  fullTextRerankCandidates: integerSetting({
    variable: 'FULL_TEXT_RERANK_CANDIDATES',
    meaning:
      "how many of each knowledge base's best BM25 chunks full-text search re-ranks by BM25F per field and term proximity (and expands the query from), or `top_k` if more; bounds each query's extra work",
    defaultValue: 50,
    minimum: 1,
    maximum: 1_000,
  }),
  /** Terms are a function of language and text alone, so an entry is never stale (src/retrieval/analysed-text-cache.ts). */
  fullTextRerankCacheCharacters: integerSetting({
    variable: 'FULL_TEXT_RERANK_CACHE_CHARACTERS',
    meaning:
      "characters of chunk text whose terms a process keeps for the proximity re-rank; an entry is used only while its chunk's language and text are the same, so it is never stale; the least recently used go past it (0 analyses every candidate's text on every query)",
    defaultValue: 4_000_000,
    minimum: 0,
    maximum: 1_000_000_000,
  }),
  /** Each list is used only at the index version it was read at (migration 0097), so none is ever stale (src/store/posting-list-cache.ts). */
  fullTextPostingsCache: integerSetting({
    variable: 'FULL_TEXT_POSTINGS_CACHE',
    meaning:
      "postings (20 bytes each) of the terms searched lately that a process keeps for full-text search's BM25 pass; a term's list is used only while its knowledge base's index version is the one it was read at, so it is never stale; the least recently used go past it (0 reads every list from the store on every query)",
    defaultValue: 500_000,
    minimum: 0,
    maximum: 100_000_000,
  }),
  /** A chunk's row never changes and its id is never used again, so an entry is never stale (src/store/chunk-row-cache.ts). */
  fullTextChunkCacheCharacters: integerSetting({
    variable: 'FULL_TEXT_CHUNK_CACHE_CHARACTERS',
    meaning:
      "characters of chunk text and metadata a process keeps for full-text search's candidates; a chunk's row never changes and its id is never used again, so an entry is never stale; the least recently used go past it (0 reads every candidate's row on every query)",
    defaultValue: 4_000_000,
    minimum: 0,
    maximum: 1_000_000_000,
  }),
  fullTextQueryExpansion: booleanSetting({
    variable: 'FULL_TEXT_QUERY_EXPANSION',
    meaning:
      "whether full-text search expands each query by RM3 pseudo-relevance feedback from the knowledge base's own best chunks; off because it lowered nDCG@10 on the benchmark (docs/knowledge-bases.md)",
    defaultValue: false,
  }),
  queryRewriteTimeoutMilliseconds: integerSetting({
    variable: 'QUERY_REWRITE_TIMEOUT_MS',
    meaning: 'how long the small fast model may take to rewrite a `context_aware` query before the last message is used',
    defaultValue: 5_000,
    minimum: 1,
    maximum: 600_000,
  }),
  knowledgeJsonDocumentsMaximum: integerSetting({
    variable: 'KB_JSON_DOCUMENTS_MAX',
    meaning: 'most documents one JSON `POST /api/knowledge-bases/{id}/documents` carries',
    defaultValue: 100,
    minimum: 1,
    maximum: 10_000,
  }),
  knowledgeJsonWritesInFlight: integerSetting({
    variable: 'KB_JSON_WRITES_IN_FLIGHT',
    meaning:
      "how many texts of one JSON `POST /api/knowledge-bases/{id}/documents` are written to storage at once; each write waits on the disk's sync, so writing several together is what makes a batch fast",
    defaultValue: 16,
    minimum: 1,
    maximum: 100,
  }),
  knowledgeJsonStoredTextBytesMaximum: integerSetting({
    variable: 'KB_JSON_STORED_TEXT_BYTES_MAX',
    meaning:
      'JSON texts (`POST /api/knowledge-bases/{id}/documents`) of at most this many bytes are kept in the database with their rows rather than written as files, which spares each a file write, sync and read; 0 writes every text as a file',
    defaultValue: 65_536,
    minimum: 0,
    maximum: 1_048_576,
  }),
  toolLoopIterations: integerSetting({
    variable: 'TOOL_LOOP_ITERATIONS',
    meaning: "model rounds with tools offered per request, unless the assistant's `tool_loop.max_iterations` says otherwise",
    defaultValue: 5,
    minimum: 1,
    maximum: 100,
  }),
  toolLoopIterationsMaximum: integerSetting({
    variable: 'TOOL_LOOP_ITERATIONS_MAX',
    meaning: "most model rounds an assistant's `tool_loop.max_iterations` may ask for",
    defaultValue: 10,
    minimum: 1,
    maximum: 100,
  }),
  toolCallTimeoutMilliseconds: integerSetting({
    variable: 'TOOL_CALL_TIMEOUT_MS',
    meaning: "how long one function call may run, unless the assistant's `tool_loop.call_timeout_ms` says otherwise",
    defaultValue: 30_000,
    minimum: 1,
    maximum: 600_000,
  }),
  toolCallTimeoutMillisecondsMaximum: integerSetting({
    variable: 'TOOL_CALL_TIMEOUT_MAX_MS',
    meaning: "longest an assistant's `tool_loop.call_timeout_ms` may be",
    defaultValue: 120_000,
    minimum: 1,
    maximum: 600_000,
  }),
  toolLoopTotalMilliseconds: integerSetting({
    variable: 'TOOL_LOOP_TOTAL_MS',
    meaning:
      "how long the whole tool loop (every model round and call) may take, unless the assistant's `tool_loop.total_timeout_ms` says otherwise",
    defaultValue: 180_000,
    minimum: 1,
    maximum: 3_600_000,
  }),
  toolLoopTotalMillisecondsMaximum: integerSetting({
    variable: 'TOOL_LOOP_TOTAL_MAX_MS',
    meaning: "longest an assistant's `tool_loop.total_timeout_ms` may be",
    defaultValue: 600_000,
    minimum: 1,
    maximum: 3_600_000,
  }),
  toolIdenticalCallsMaximum: integerSetting({
    variable: 'TOOL_IDENTICAL_CALLS_MAX',
    meaning: 'how often one identical call (same tool, same arguments) runs in a request; later repeats get an error result',
    defaultValue: 2,
    minimum: 1,
    maximum: 100,
  }),
  toolResultCharactersMaximum: integerSetting({
    variable: 'TOOL_RESULT_CHARS_MAX',
    meaning: 'longest tool result the model sees; longer ones are cut with a marker',
    defaultValue: 20_000,
    minimum: 100,
    maximum: 1_000_000,
  }),
  deepAnalysisPassages: integerSetting({
    variable: 'DEEP_ANALYSIS_PASSAGES',
    meaning: 'passages one `deep_analysis` call gathers from the knowledge bases when its tool config names no `passages`',
    defaultValue: 40,
    minimum: 1,
    maximum: 10_000,
  }),
  deepAnalysisPassagesMaximum: integerSetting({
    variable: 'DEEP_ANALYSIS_PASSAGES_MAX',
    meaning:
      'most passages one `deep_analysis` call gathers, whatever its tool config says; more stop the gathering with the reason `passages`',
    defaultValue: 200,
    minimum: 1,
    maximum: 10_000,
  }),
  deepAnalysisBatchPassages: integerSetting({
    variable: 'DEEP_ANALYSIS_BATCH_PASSAGES',
    meaning: "passages the small fast model summarises in one call of a `deep_analysis`, unless the tool config's `batch_size` is smaller",
    defaultValue: 8,
    minimum: 1,
    maximum: 1_000,
  }),
  deepAnalysisBatchesMaximum: integerSetting({
    variable: 'DEEP_ANALYSIS_BATCHES_MAX',
    meaning:
      'most batches one `deep_analysis` call summarises; the passages past them are left out and the run says it stopped at `batches`',
    defaultValue: 10,
    minimum: 1,
    maximum: 1_000,
  }),
  deepAnalysisParallelBatches: integerSetting({
    variable: 'DEEP_ANALYSIS_PARALLEL_BATCHES',
    meaning: 'batches of one `deep_analysis` call summarised at once',
    defaultValue: 4,
    minimum: 1,
    maximum: 64,
  }),
  deepAnalysisTokensMaximum: integerSetting({
    variable: 'DEEP_ANALYSIS_TOKENS_MAX',
    meaning:
      'most tokens (prompt and answer, every model call together) one `deep_analysis` call may use; no call starts that could pass it, and the run says it stopped at `tokens`',
    defaultValue: 60_000,
    minimum: 100,
    maximum: 10_000_000,
  }),
  deepAnalysisMilliseconds: integerSetting({
    variable: 'DEEP_ANALYSIS_TIME_MS',
    meaning:
      'how long one `deep_analysis` call may take (keep it under `TOOL_CALL_TIMEOUT_MS`); summaries stop at two thirds of it and the run says it stopped at `time`',
    defaultValue: 25_000,
    minimum: 1,
    maximum: 600_000,
  }),
  deepAnalysisSummaryTokensMaximum: integerSetting({
    variable: 'DEEP_ANALYSIS_SUMMARY_TOKENS_MAX',
    meaning: 'longest summary of one batch the small fast model may write in a `deep_analysis`, in tokens',
    defaultValue: 400,
    minimum: 16,
    maximum: 100_000,
  }),
  deepAnalysisAnswerTokensMaximum: integerSetting({
    variable: 'DEEP_ANALYSIS_ANSWER_TOKENS_MAX',
    meaning: "longest answer the assistant's model may write from the summaries of a `deep_analysis`, in tokens",
    defaultValue: 1_000,
    minimum: 16,
    maximum: 100_000,
  }),
  graphEntitiesPerChunkMaximum: integerSetting({
    variable: 'GRAPH_ENTITIES_PER_CHUNK_MAX',
    meaning:
      "most entities the entity graph keeps from one chunk (knowledge bases with `graph.enabled`); the small fast model's others are dropped",
    defaultValue: 12,
    minimum: 1,
    maximum: 200,
  }),
  graphRelationsPerChunkMaximum: integerSetting({
    variable: 'GRAPH_RELATIONS_PER_CHUNK_MAX',
    meaning: 'most relations the entity graph keeps from one chunk; the others are dropped',
    defaultValue: 16,
    minimum: 0,
    maximum: 400,
  }),
  graphEntityNameCharactersMaximum: integerSetting({
    variable: 'GRAPH_ENTITY_NAME_MAX_CHARS',
    meaning: 'longest entity name or relation label the entity graph keeps; longer ones are dropped',
    defaultValue: 80,
    minimum: 8,
    maximum: 400,
  }),
  graphExtractionParallelChunks: integerSetting({
    variable: 'GRAPH_EXTRACTION_PARALLEL_CHUNKS',
    meaning: 'chunks of one document whose entities the small fast model extracts at once',
    defaultValue: 4,
    minimum: 1,
    maximum: 64,
  }),
  graphExtractionTokensMaximum: integerSetting({
    variable: 'GRAPH_EXTRACTION_TOKENS_MAX',
    meaning: "longest answer the small fast model may write for one chunk's entities and relations, in tokens",
    defaultValue: 800,
    minimum: 64,
    maximum: 100_000,
  }),
  graphSearchDepthMaximum: integerSetting({
    variable: 'GRAPH_SEARCH_DEPTH_MAX',
    meaning: 'most relation steps `graph_search` walks from the entities a question names; its tool config may name fewer',
    defaultValue: 2,
    minimum: 0,
    maximum: 6,
  }),
  graphSearchFanOutMaximum: integerSetting({
    variable: 'GRAPH_SEARCH_FANOUT_MAX',
    meaning: 'most neighbours `graph_search` follows from one entity at each step; its tool config may name fewer',
    defaultValue: 8,
    minimum: 1,
    maximum: 200,
  }),
  graphSearchPassagesMaximum: integerSetting({
    variable: 'GRAPH_SEARCH_PASSAGES_MAX',
    meaning: 'most passages one `graph_search` call returns as sources; its tool config may name fewer',
    defaultValue: 12,
    minimum: 1,
    maximum: 200,
  }),
  /** Configurable so tests and self-hosted instances can point elsewhere. */
  openMeteoGeocodingUrl: urlSetting({
    variable: 'OPEN_METEO_GEOCODING_URL',
    meaning: 'where the weather tool geocodes places (Open-Meteo)',
    defaultText: 'https://geocoding-api.open-meteo.com/v1/search',
  }),
  openMeteoForecastUrl: urlSetting({
    variable: 'OPEN_METEO_FORECAST_URL',
    meaning: 'where the weather tool reads current weather (Open-Meteo)',
    defaultText: 'https://api.open-meteo.com/v1/forecast',
  }),
  moodleApiUrl: urlSetting({
    variable: 'MOODLE_API_URL',
    meaning: 'Moodle Web Services (`…/webservice/rest/server.php`) for organizations that set none',
  }),
  moodleToken: textSetting({
    variable: 'MOODLE_TOKEN',
    meaning: 'Moodle Web Services token for organizations that set none',
  }),
  integrationTimeoutMilliseconds: integerSetting({
    variable: 'INTEGRATION_TIMEOUT_MS',
    meaning: 'how long one call to Open-Meteo or Moodle may take',
    defaultValue: 10_000,
    minimum: 1,
    maximum: 600_000,
  }),
  /** The answer is read whole and parsed as JSON, so the bound is what one call may hold in memory. */
  integrationResponseBytesMaximum: integerSetting({
    variable: 'INTEGRATION_RESPONSE_MAX_BYTES',
    meaning:
      "largest answer Open-Meteo or Moodle may send to one call (4 MiB); past it the call fails with `upstream_error` naming the service and this setting, so a broken or hostile service cannot fill the process's memory (an organization's Moodle is also held to `UPSTREAM_RESPONSE_MAX_BYTES`)",
    defaultValue: 4_194_304,
    minimum: 1_024,
    maximum: 1_073_741_824,
  }),
  webSearchSearchesMaximum: integerSetting({
    variable: 'WEB_SEARCH_SEARCHES_MAX',
    meaning: 'web searches one chat request may make with the `web_search` tool; later calls get an error result',
    defaultValue: 3,
    minimum: 1,
    maximum: 100,
  }),
  webSearchPagesMaximum: integerSetting({
    variable: 'WEB_SEARCH_PAGES_MAX',
    meaning:
      "pages one chat request may read with the `web_search` tool's read-the-page step; results past it are given without their page text",
    defaultValue: 5,
    minimum: 0,
    maximum: 100,
  }),
  webPageBytesMaximum: integerSetting({
    variable: 'WEB_PAGE_MAX_BYTES',
    meaning: 'largest web page (2 MiB) read by web_search or added to a knowledge base; a larger one is refused with a reason',
    defaultValue: 2_097_152,
    minimum: 1_024,
    maximum: 104_857_600,
  }),
  webPageTimeoutMilliseconds: integerSetting({
    variable: 'WEB_PAGE_TIMEOUT_MS',
    meaning: 'how long fetching one web page (every redirect and the whole body) may take',
    defaultValue: 10_000,
    minimum: 1,
    maximum: 600_000,
  }),
  webPageRedirectsMaximum: integerSetting({
    variable: 'WEB_PAGE_REDIRECTS_MAX',
    meaning: 'redirects a web page fetch follows, each checked against the outbound rules; one more fails the page',
    defaultValue: 5,
    minimum: 0,
    maximum: 20,
  }),
  webPageTextCharactersMaximum: integerSetting({
    variable: 'WEB_PAGE_TEXT_MAX_CHARS',
    meaning: 'longest readable text of one web page the model is given; longer text is cut with a marker',
    defaultValue: 6_000,
    minimum: 100,
    maximum: 1_000_000,
  }),
  webCrawlDepthMaximum: integerSetting({
    variable: 'WEB_CRAWL_DEPTH_MAX',
    meaning:
      'deepest a crawl of same-site links from a page added to a knowledge base may go (links of links…); a deeper `depth` is refused',
    defaultValue: 3,
    minimum: 1,
    maximum: 10,
  }),
  webCrawlPagesMaximum: integerSetting({
    variable: 'WEB_CRAWL_PAGES_MAX',
    meaning: 'most pages one crawl of same-site links may read, the first page included; a larger `pages` is refused',
    defaultValue: 50,
    minimum: 1,
    maximum: 5_000,
  }),
  webCrawlPagesInFlight: integerSetting({
    variable: 'WEB_CRAWL_PAGES_IN_FLIGHT',
    meaning: 'pages one crawl reads at once',
    defaultValue: 4,
    minimum: 1,
    maximum: 32,
  }),
  webCrawlLeaseMilliseconds: integerSetting({
    variable: 'WEB_CRAWL_LEASE_MS',
    meaning:
      "how long a running crawl of same-site links stays its process's without renewal (renewed every third of it); past it, or as soon as that process is gone from the same host, the leftover sweep marks the crawl failed, keeping the pages it read",
    defaultValue: 60_000,
    minimum: 1_000,
    maximum: 86_400_000,
  }),
  webRefreshIntervalMinimumSeconds: integerSetting({
    variable: 'WEB_REFRESH_INTERVAL_MIN_SECONDS',
    meaning: 'shortest schedule (`every_seconds`) on which a web page document may be refreshed',
    defaultValue: 3_600,
    minimum: 1,
    maximum: 31_536_000,
  }),
  webRefreshSweepMilliseconds: integerSetting({
    variable: 'WEB_REFRESH_SWEEP_MS',
    meaning: 'how often one process of the fleet looks for web page documents due for their scheduled refresh',
    defaultValue: 60_000,
    minimum: 10,
    maximum: 86_400_000,
  }),
  webRefreshPagesPerSweep: integerSetting({
    variable: 'WEB_REFRESH_PAGES_PER_SWEEP',
    meaning: 'web page documents one scheduled sweep refreshes at most; the others wait for the next sweep',
    defaultValue: 20,
    minimum: 1,
    maximum: 1_000,
  }),
  /** Configurable so tests can point at a fake speaking YouTube's caption formats. */
  youtubeBaseUrl: urlSetting({
    variable: 'YOUTUBE_BASE_URL',
    meaning: "where a YouTube video's caption list and captions are read when its address is added to a knowledge base",
    defaultText: 'https://www.youtube.com',
  }),
  outboundAllowedHosts: {
    variable: 'OUTBOUND_ALLOWED_HOSTS',
    meaning:
      "comma-separated host names or addresses (no scheme or port) that organizations' URLs (providers, `kb_server`, Moodle) may reach although they are private or internal; all others are refused, checked on the resolved address at connect time ([outbound requests](docs/outbound-requests.md))",
    defaultText: '',
    read: readOutboundAllowedHosts,
  },
  assistantToolTimeoutMilliseconds: integerSetting({
    variable: 'ASSISTANT_TOOL_TIMEOUT_MS',
    meaning: 'how long one call of an assistant used as a tool may run',
    defaultValue: 60_000,
    minimum: 1,
    maximum: 600_000,
  }),
  assistantToolCallsMaximum: integerSetting({
    variable: 'ASSISTANT_TOOL_CALLS_MAX',
    meaning: 'assistant-tool calls one request may make; later ones get an error result',
    defaultValue: 6,
    minimum: 1,
    maximum: 100,
  }),
  assistantToolTotalMilliseconds: integerSetting({
    variable: 'ASSISTANT_TOOL_TOTAL_MS',
    meaning: 'how long all assistant-tool calls of one request may take together',
    defaultValue: 120_000,
    minimum: 1,
    maximum: 3_600_000,
  }),
  assistantToolResultCharactersMaximum: integerSetting({
    variable: 'ASSISTANT_TOOL_RESULT_CHARS_MAX',
    meaning: "longest target answer the orchestrator's model sees; longer ones are cut with a marker",
    defaultValue: 8_000,
    minimum: 100,
    maximum: 1_000_000,
  }),
  mcpQuestionCharactersMaximum: integerSetting({
    variable: 'MCP_QUESTION_MAX_CHARS',
    meaning:
      "longest `question` (and each earlier turn's `content`) an MCP client may send to an assistant's tool at `/mcp`; a longer one gets a tool error naming `question`",
    defaultValue: 32_000,
    minimum: 1,
    maximum: 1_000_000,
  }),
  mcpConversationMessagesMaximum: integerSetting({
    variable: 'MCP_CONVERSATION_MESSAGES_MAX',
    meaning: 'most earlier turns an MCP tool call may bring in `conversation`; more get a tool error naming `conversation`',
    defaultValue: 50,
    minimum: 0,
    maximum: 1_000,
  }),
  mcpSessionIdleMilliseconds: integerSetting({
    variable: 'MCP_SESSION_IDLE_MS',
    meaning:
      'how long an MCP session at `/mcp` lives after its last request or while its notification stream is open; a later request with its `Mcp-Session-Id` gets 404',
    defaultValue: 3_600_000,
    minimum: 1_000,
    maximum: 2_592_000_000,
  }),
  mcpSessionsPerCredentialMaximum: integerSetting({
    variable: 'MCP_SESSIONS_PER_CREDENTIAL_MAX',
    meaning: 'most live MCP sessions one API key or login session may hold; a new one past it ends the least recently used',
    defaultValue: 50,
    minimum: 1,
    maximum: 10_000,
  }),
  mcpListChangedPollMilliseconds: integerSetting({
    variable: 'MCP_LIST_CHANGED_POLL_MS',
    meaning:
      "how often an MCP session's notification stream (`GET /mcp`) reads the store to see whether the caller's assistants changed, to send `notifications/tools/list_changed` and `prompts/list_changed`",
    defaultValue: 5_000,
    minimum: 100,
    maximum: 3_600_000,
  }),
  /**
   * Only for keys held by a trusted front end (Open WebUI's ENABLE_FORWARD_USER_INFO_HEADERS):
   * whoever holds the key can claim any email, so only keys a system admin marked
   * `trusted_front_end` are believed, even when this is on.
   */
  trustForwardedUserHeaders: booleanSetting({
    variable: 'TRUST_FORWARDED_USER_HEADERS',
    meaning:
      "when `true`, a chat request may name the learner in Open WebUI's `X-OpenWebUI-User-Email` header and then runs as the Merino user with that email in the key's organization (docs/open-webui.md), but only with an API key a system admin created with `trusted_front_end: true`; from any other key or a session the header is ignored",
    defaultValue: false,
  }),
  /** Long enough to read an answer's sources later in the week; a chat kept longer shows links that have ended. */
  sourceLinkLifetimeHours: integerSetting({
    variable: 'SOURCE_LINK_LIFETIME_HOURS',
    meaning:
      'hours a signed link of a "Sources" block (trusted front-end keys with `source_links`) opens its passage; after that it answers 410 `source_link_expired`',
    defaultValue: 168,
    minimum: 1,
    maximum: 8_760,
  }),
  /** Off by default: a client would otherwise pick its own address, and with it its own rate-limit counter. */
  trustProxy: {
    variable: 'TRUST_PROXY',
    meaning:
      "Fastify's `trustProxy`: `true`, a hop count, or comma-separated proxy addresses/CIDR ranges whose `X-Forwarded-For` names the client address (for login limits and the audit log); off, a client cannot choose its own address",
    defaultText: 'false',
    read: readTrustProxy,
  },
  loginFailuresPerAccountMaximum: integerSetting({
    variable: 'LOGIN_FAILURES_PER_ACCOUNT_MAX',
    meaning: 'failed logins of one account within the window; further attempts get 429 with `Retry-After`, even with the right password',
    defaultValue: 10,
    minimum: 1,
    maximum: 10_000,
  }),
  loginFailuresPerAddressMaximum: integerSetting({
    variable: 'LOGIN_FAILURES_PER_ADDRESS_MAX',
    meaning: 'failed logins from one client address within the window before its attempts get 429',
    defaultValue: 100,
    minimum: 1,
    maximum: 1_000_000,
  }),
  loginFailureWindowSeconds: integerSetting({
    variable: 'LOGIN_FAILURE_WINDOW_SECONDS',
    meaning: "how long failed logins are counted; a lock-out ends with the window (a successful login clears its account's count)",
    defaultValue: 900,
    minimum: 1,
    maximum: 86_400,
  }),
  signUpAttemptsPerAddressMaximum: integerSetting({
    variable: 'SIGN_UP_ATTEMPTS_PER_ADDRESS_MAX',
    meaning:
      'self sign-ups (`POST /api/auth/sign-up`) from one client address within the window, successful or not; further attempts get 429 with `Retry-After` (docs/sign-up.md)',
    defaultValue: 50,
    minimum: 1,
    maximum: 1_000_000,
  }),
  signUpWindowSeconds: integerSetting({
    variable: 'SIGN_UP_WINDOW_SECONDS',
    meaning: 'how long sign-up attempts are counted per client address',
    defaultValue: 3600,
    minimum: 1,
    maximum: 86_400,
  }),
  chatMessageCharactersMaximum: integerSetting({
    variable: 'CHAT_MESSAGE_MAX_CHARS',
    meaning: 'longest message a learner may send to a kept chat (`POST /api/chats/{id}/messages`); longer ones get 400 naming `content`',
    defaultValue: 32_000,
    minimum: 1,
    maximum: 1_000_000,
  }),
  chatFeedbackCommentCharactersMaximum: integerSetting({
    variable: 'CHAT_FEEDBACK_COMMENT_MAX_CHARS',
    meaning: 'longest comment a learner may write with a thumb up or down on an answer; longer ones get 400 naming `comment`',
    defaultValue: 2_000,
    minimum: 1,
    maximum: 100_000,
  }),
  testCasesPerAssistantMaximum: integerSetting({
    variable: 'TEST_CASES_PER_ASSISTANT_MAX',
    meaning: 'most test cases one assistant may hold (docs/assistant-tests.md); one more gets 409 `test_cases_limit`',
    defaultValue: 200,
    minimum: 1,
    maximum: 1_000,
  }),
  testCaseTurnsMaximum: integerSetting({
    variable: 'TEST_CASE_TURNS_MAX',
    meaning: 'most learner turns one test case may hold',
    defaultValue: 10,
    minimum: 1,
    maximum: 50,
  }),
  testCaseTurnCharactersMaximum: integerSetting({
    variable: 'TEST_CASE_TURN_CHARACTERS_MAX',
    meaning: 'longest learner turn of a test case, in characters',
    defaultValue: 4_000,
    minimum: 100,
    maximum: 100_000,
  }),
  testRunConcurrency: integerSetting({
    variable: 'TEST_RUN_CONCURRENCY',
    meaning: 'how many cases of one test run go through the pipeline at once',
    defaultValue: 4,
    minimum: 1,
    maximum: 32,
  }),
  testRunsPerAssistantMaximum: integerSetting({
    variable: 'TEST_RUNS_RUNNING_PER_ASSISTANT_MAX',
    meaning: 'how many test runs of one assistant may be running at once; one more gets 429 `test_runs_limit`',
    defaultValue: 2,
    minimum: 1,
    maximum: 20,
  }),
  testJudgeTimeoutMilliseconds: integerSetting({
    variable: 'TEST_JUDGE_TIMEOUT_MS',
    meaning: 'how long the judge model may take to grade one judged expectation; past it the expectation is `not_judged`',
    defaultValue: 30_000,
    minimum: 100,
    maximum: 600_000,
  }),
  testRunEventsPollMilliseconds: integerSetting({
    variable: 'TEST_RUN_EVENTS_POLL_MS',
    meaning: "how often a test run's event stream (`GET /api/assistants/{id}/test-runs/{runId}/events`) reads the store for progress",
    defaultValue: 500,
    minimum: 10,
    maximum: 60_000,
  }),
  testRunLeaseMilliseconds: integerSetting({
    variable: 'TEST_RUN_LEASE_MS',
    meaning:
      "how long a process's claim on a running test run lasts unless renewed (four times per lease); a run whose process died is marked `interrupted`, its finished results kept, once the lease lapses (at once if that process is gone from this machine); swept every lease",
    defaultValue: 20_000,
    minimum: 1_000,
    maximum: 600_000,
  }),
  testSuggestionsMaximum: integerSetting({
    variable: 'TEST_SUGGESTIONS_MAX',
    meaning:
      "most test cases one `POST /api/assistants/{id}/test-suggestions` proposes (the organization's small fast model writes them; nothing is saved)",
    defaultValue: 5,
    minimum: 1,
    maximum: 20,
  }),
  testSuggestionPassageCharactersMaximum: integerSetting({
    variable: 'TEST_SUGGESTION_PASSAGE_MAX_CHARS',
    meaning: "how many characters of the assistant's knowledge-base passages the model proposing test cases is shown, in all",
    defaultValue: 6_000,
    minimum: 0,
    maximum: 100_000,
  }),
  testSuggestionTokensMaximum: integerSetting({
    variable: 'TEST_SUGGESTION_TOKENS_MAX',
    meaning: 'most tokens the model proposing test cases may answer; a longer answer is cut and what is readable of it kept',
    defaultValue: 2_000,
    minimum: 100,
    maximum: 16_000,
  }),
  testSuggestionTimeoutMilliseconds: integerSetting({
    variable: 'TEST_SUGGESTION_TIMEOUT_MS',
    meaning: 'how long the model proposing test cases may take; past it the request gets 504 `upstream_timeout`',
    defaultValue: 30_000,
    minimum: 100,
    maximum: 600_000,
  }),
  insightsTopicTermsPerQuestionMaximum: integerSetting({
    variable: 'INSIGHTS_QUESTION_TERMS_MAX',
    meaning:
      "how many terms of each learner question count toward its assistant's topics in insights (the first content words, names left out)",
    defaultValue: 5,
    minimum: 1,
    maximum: 20,
  }),
  insightsTopicsMaximum: integerSetting({
    variable: 'INSIGHTS_TOPICS_MAX',
    meaning: "most question topics an assistant's insights list, the most frequent first",
    defaultValue: 10,
    minimum: 1,
    maximum: 100,
  }),
  insightsTopicQuestionsMinimum: integerSetting({
    variable: 'INSIGHTS_TOPIC_QUESTIONS_MIN',
    meaning:
      "fewest questions a term must come from to be shown as a topic in an assistant's insights, so one learner's words are not shown alone",
    defaultValue: 3,
    minimum: 1,
    maximum: 1_000,
  }),
  insightsSourcesMaximum: integerSetting({
    variable: 'INSIGHTS_SOURCES_MAX',
    meaning: "most sources an assistant's insights list as the most used",
    defaultValue: 10,
    minimum: 1,
    maximum: 100,
  }),
  insightsFeedbackTurnsMaximum: integerSetting({
    variable: 'INSIGHTS_FEEDBACK_TURNS_MAX',
    meaning:
      'most messages of the conversation leading to a rated answer that `GET /api/assistants/{id}/feedback` shows with it, the answer included, the latest kept',
    defaultValue: 10,
    minimum: 1,
    maximum: 200,
  }),
  chatMessagesMaximum: integerSetting({
    variable: 'CHAT_MESSAGES_MAX',
    meaning: 'most messages (questions and answers) one kept chat may hold; a question past it gets 409 `chat_full` (start a new chat)',
    defaultValue: 200,
    minimum: 2,
    maximum: 10_000,
  }),
  chatRunUnwatchedSecondsMaximum: integerSetting({
    variable: 'CHAT_RUN_UNWATCHED_SECONDS_MAX',
    meaning:
      "how long a kept chat's answer may go on with no client following it (the asker left and nobody rejoined); then it ends and what it has is kept, as after Stop",
    defaultValue: 600,
    minimum: 1,
    maximum: 86_400,
  }),
  chatRunsPerUserMaximum: integerSetting({
    variable: 'CHAT_RUNS_PER_USER_MAX',
    meaning:
      'how many answers in kept chats one user may have running at once, across processes; a question past it gets 429 `chat_runs_limit` (one chat runs one answer at a time: 409 `chat_run_in_progress`)',
    defaultValue: 3,
    minimum: 1,
    maximum: 1_000,
  }),
  chatRunLeaseMilliseconds: integerSetting({
    variable: 'CHAT_RUN_LEASE_MS',
    meaning:
      "how long a process's claim on a running chat answer lasts unless renewed (renewed four times per lease); once a dead process's lease lapses its answer is kept as `interrupted`, and the run sweep (every lease) removes the logs of runs that ended a lease ago",
    defaultValue: 20_000,
    minimum: 1_000,
    maximum: 600_000,
  }),
  chatPurgeIntervalMilliseconds: integerSetting({
    variable: 'CHAT_PURGE_INTERVAL_MS',
    meaning: "how often each process deletes chats older than their organization's `chat_retention_days`",
    defaultValue: 3_600_000,
    minimum: 100,
    maximum: 86_400_000,
  }),
  chatRequestsPerUserMaximum: integerSetting({
    variable: 'CHAT_REQUESTS_PER_USER_MAX',
    meaning:
      "chat requests (`/v1/chat/completions`, `/lamb/v1/completions`, a kept chat's messages and regenerations) one user may make per window; more get 429 with `Retry-After`",
    defaultValue: 600,
    minimum: 1,
    maximum: 1_000_000,
  }),
  chatRequestsPerApiKeyMaximum: integerSetting({
    variable: 'CHAT_REQUESTS_PER_API_KEY_MAX',
    meaning: "chat requests one API key may make per window (its user's limit applies too)",
    defaultValue: 600,
    minimum: 1,
    maximum: 1_000_000,
  }),
  chatRateWindowSeconds: integerSetting({
    variable: 'CHAT_RATE_WINDOW_SECONDS',
    meaning: 'the window of the chat limits; all limits are counted in the store, so they hold across processes sharing PostgreSQL',
    defaultValue: 60,
    minimum: 1,
    maximum: 86_400,
  }),
  ltiTimestampSkewSeconds: integerSetting({
    variable: 'LTI_TIMESTAMP_SKEW_SECONDS',
    meaning: "how far an LTI 1.1 launch's `oauth_timestamp` may be from the server's clock; older or later launches get the 401 page",
    defaultValue: 300,
    minimum: 1,
    maximum: 3_600,
  }),
  ltiTokenClockSkewSeconds: integerSetting({
    variable: 'LTI_TOKEN_CLOCK_SKEW_SECONDS',
    meaning: "clock difference allowed when checking an LTI 1.3 `id_token`'s `exp` and `iat`",
    defaultValue: 60,
    minimum: 0,
    maximum: 600,
  }),
  ltiLoginStateSeconds: integerSetting({
    variable: 'LTI_LOGIN_STATE_SECONDS',
    meaning:
      'how long an LTI 1.3 login (OIDC `state` and `nonce`, kept in the store, and its browser cookie) waits for its launch; also the oldest `iat` an `id_token` may have',
    defaultValue: 600,
    minimum: 10,
    maximum: 86_400,
  }),
  ltiPlatformStorageWaitMilliseconds: integerSetting({
    variable: 'LTI_PLATFORM_STORAGE_WAIT_MS',
    meaning:
      "how long an LTI 1.3 login or launch page waits for the platform to answer its `lti.put_data`/`lti.get_data` message (platform storage, for browsers without the login's cookie)",
    defaultValue: 5_000,
    minimum: 100,
    maximum: 60_000,
  }),
  ltiLaunchesPerAddressMaximum: integerSetting({
    variable: 'LTI_LAUNCHES_PER_ADDRESS_MAX',
    meaning: 'LTI launch and login requests from one client address per window; more get 429 with `Retry-After`',
    defaultValue: 300,
    minimum: 1,
    maximum: 1_000_000,
  }),
  ltiLaunchWindowSeconds: integerSetting({
    variable: 'LTI_LAUNCH_WINDOW_SECONDS',
    meaning: 'the window of the LTI launch limit, counted in the store',
    defaultValue: 60,
    minimum: 1,
    maximum: 86_400,
  }),
  ltiJwksTimeoutMilliseconds: integerSetting({
    variable: 'LTI_JWKS_TIMEOUT_MS',
    meaning: "how long fetching an LTI 1.3 platform's JWKS may take",
    defaultValue: 5_000,
    minimum: 1,
    maximum: 60_000,
  }),
  ltiJwksCacheSeconds: integerSetting({
    variable: 'LTI_JWKS_CACHE_SECONDS',
    meaning: "how long a platform's JWKS is kept before it is fetched again (a token with an unknown `kid` fetches it sooner)",
    defaultValue: 600,
    minimum: 1,
    maximum: 86_400,
  }),
  ltiJwksRefetchCooldownMilliseconds: integerSetting({
    variable: 'LTI_JWKS_REFETCH_COOLDOWN_MS',
    meaning: "after fetching a platform's JWKS, how long a token with an unknown `kid` waits before the JWKS is fetched again",
    defaultValue: 30_000,
    minimum: 0,
    maximum: 3_600_000,
  }),
  frameAncestors: {
    variable: 'FRAME_ANCESTORS',
    meaning:
      "CSP `frame-ancestors`: comma-separated origins (`https://lms.example.org`, `https://*.example.org`), `'self'` or `'none'` allowed to show Merino in a frame",
    defaultText: "'self'",
    read: readFrameAncestors,
  },
  corsOrigins: {
    variable: 'CORS_ORIGINS',
    meaning: 'comma-separated browser origins allowed to call the API across origins; unset, CORS stays closed',
    defaultText: '',
    read: readCorsOrigins,
  },
  logLevel: {
    variable: 'LOG_LEVEL',
    meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
    defaultText: 'info',
    read: readLogLevel,
  },
} as const satisfies Record<string, SettingDeclaration<unknown> | DefaultedSettingDeclaration<unknown>>;
