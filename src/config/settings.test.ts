// Proves loadSettings: its defaults, that every limit is read from its variable, and that every bad value stops start-up with a SettingsError naming the variable (and never echoing a database password).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, pluginsDirectoryOf, SettingsError, type Settings } from './settings.js';

type Environment = Record<string, string | undefined>;

/** Runs loadSettings and hands back the SettingsError it must throw; fails the test when it throws nothing or something else. */
function settingsErrorFor(environment: Environment): SettingsError {
  let thrown: unknown;
  try {
    loadSettings(environment);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `loadSettings(${JSON.stringify(environment)}) should throw`).toBeInstanceOf(SettingsError);
  return thrown as SettingsError;
}

describe('loadSettings defaults', () => {
  const settings = loadSettings({});

  it('listens on 127.0.0.1 port 9099 when HOST and PORT are unset', () => {
    expect(settings.host).toBe('127.0.0.1');
    expect(settings.port).toBe(9099);
  });

  it('keeps data in ./data resolved to an absolute path when DATA_DIR is unset', () => {
    expect(path.isAbsolute(settings.dataDirectory)).toBe(true);
    expect(settings.dataDirectory).toBe(path.resolve(process.cwd(), 'data'));
  });

  it('resolves a relative DATA_DIR to an absolute path', () => {
    const custom = loadSettings({ DATA_DIR: 'some/relative/folder' });
    expect(custom.dataDirectory).toBe(path.resolve(process.cwd(), 'some/relative/folder'));
  });

  it('takes plugins from DATA_DIR/plugins unless PLUGINS_DIR names another folder, resolved to an absolute path', () => {
    expect(pluginsDirectoryOf(loadSettings({ DATA_DIR: '/srv/merino' }))).toBe(path.join('/srv/merino', 'plugins'));
    expect(pluginsDirectoryOf(loadSettings({ DATA_DIR: '/srv/merino', PLUGINS_DIR: 'extra' }))).toBe(path.resolve(process.cwd(), 'extra'));
  });

  it('uses the embedded SQLite store (no database URL) when DATABASE_URL is unset or blank', () => {
    expect(settings.databaseUrl).toBeUndefined();
    expect(loadSettings({ DATABASE_URL: '   ' }).databaseUrl).toBeUndefined();
  });

  it('logs at info level and has no admin email or password when those variables are unset', () => {
    expect(settings.logLevel).toBe('info');
    expect(settings.adminEmail).toBeUndefined();
    expect(settings.adminPassword).toBeUndefined();
  });

  it('accepts a postgres:// and a postgresql:// DATABASE_URL unchanged', () => {
    const sharedKey = 'a key every process shares';
    expect(loadSettings({ DATABASE_URL: 'postgres://u:secretpw@h/db', MERINO_SECRET_KEY: sharedKey }).databaseUrl).toBe(
      'postgres://u:secretpw@h/db',
    );
    expect(loadSettings({ DATABASE_URL: 'postgresql://u@h:5433/db', MERINO_SECRET_KEY: sharedKey }).databaseUrl).toBe(
      'postgresql://u@h:5433/db',
    );
  });

  it('refuses PostgreSQL without a shared MERINO_SECRET_KEY, saying why, and never echoes the database password', () => {
    for (const key of [undefined, '', '   ']) {
      const error = settingsErrorFor({ DATABASE_URL: 'postgres://u:secretpw@h/db', MERINO_SECRET_KEY: key });
      expect(error.variable).toBe('MERINO_SECRET_KEY');
      expect(error.message).toContain('DATABASE_URL');
      expect(error.message).toContain('same key');
      expect(error.message).not.toContain('secretpw');
    }
    expect(loadSettings({ MERINO_SECRET_KEY: undefined }).secretKey).toBeUndefined();
  });

  it('lower-cases MERINO_ADMIN_EMAIL', () => {
    expect(loadSettings({ MERINO_ADMIN_EMAIL: 'Admin@Example.TEST' }).adminEmail).toBe('admin@example.test');
  });
});

interface LimitCase {
  variable: string;
  field: keyof Settings;
  defaultValue: number;
  minimum: number;
  /** A valid value different from the default. */
  customValue: number;
}

const LIMITS: readonly LimitCase[] = [
  { variable: 'SESSION_TTL_HOURS', field: 'sessionTtlHours', defaultValue: 168, minimum: 1, customValue: 12 },
  { variable: 'PASSWORD_MIN_LENGTH', field: 'passwordLengthMinimum', defaultValue: 8, minimum: 6, customValue: 14 },
  { variable: 'PASSWORD_HASH_COST', field: 'passwordHashCost', defaultValue: 15, minimum: 10, customValue: 12 },
  { variable: 'BODY_LIMIT_BYTES', field: 'bodyBytesMaximum', defaultValue: 1_048_576, minimum: 1024, customValue: 65_536 },
  { variable: 'PAGE_SIZE_MAX', field: 'pageSizeMaximum', defaultValue: 200, minimum: 1, customValue: 25 },
  { variable: 'JSON_DEPTH_MAX', field: 'jsonDepthMaximum', defaultValue: 64, minimum: 4, customValue: 16 },
  { variable: 'SHUTDOWN_TIMEOUT_MS', field: 'shutdownTimeoutMilliseconds', defaultValue: 10_000, minimum: 0, customValue: 2_500 },
  { variable: 'SHUTDOWN_DRAIN_DELAY_MS', field: 'shutdownDrainDelayMilliseconds', defaultValue: 0, minimum: 0, customValue: 5_000 },
  { variable: 'SHUTDOWN_STREAM_GRACE_MS', field: 'shutdownStreamGraceMilliseconds', defaultValue: 7_000, minimum: 0, customValue: 3_000 },
  { variable: 'DATABASE_POOL_SIZE', field: 'databasePoolSize', defaultValue: 10, minimum: 1, customValue: 3 },
  {
    variable: 'POSTGRES_PREPARED_STATEMENTS_MAXIMUM',
    field: 'postgresPreparedStatementsMaximum',
    defaultValue: 128,
    minimum: 0,
    customValue: 16,
  },
  { variable: 'SQLITE_STATEMENT_CACHE_SIZE', field: 'sqliteStatementCacheSize', defaultValue: 256, minimum: 0, customValue: 32 },
  { variable: 'SQLITE_CACHE_MB', field: 'sqliteCacheMegabytes', defaultValue: 64, minimum: 1, customValue: 256 },
  {
    variable: 'SQLITE_CHECKPOINT_INTERVAL_MS',
    field: 'sqliteCheckpointIntervalMilliseconds',
    defaultValue: 250,
    minimum: 0,
    customValue: 1_000,
  },
  {
    variable: 'SQLITE_BACKSTOP_CHECKPOINT_PAGES',
    field: 'sqliteBackstopCheckpointPages',
    defaultValue: 10_000,
    minimum: 1_000,
    customValue: 4_000,
  },
  { variable: 'API_KEY_CACHE_MS', field: 'apiKeyCacheMilliseconds', defaultValue: 5_000, minimum: 0, customValue: 1_000 },
  { variable: 'HOT_READ_CACHE_MS', field: 'hotReadCacheMilliseconds', defaultValue: 5_000, minimum: 0, customValue: 2_000 },
  { variable: 'HOT_READ_CACHE_ENTRIES', field: 'hotReadCacheEntriesMaximum', defaultValue: 10_000, minimum: 1, customValue: 500 },
  { variable: 'RUN_RECORD_WINDOW_MS', field: 'runRecordWindowMilliseconds', defaultValue: 50, minimum: 0, customValue: 200 },
  { variable: 'RUN_RECORD_BATCH_MAX', field: 'runRecordBatchMaximum', defaultValue: 500, minimum: 1, customValue: 50 },
  { variable: 'FILE_UPLOAD_MAX_BYTES', field: 'fileUploadBytesMaximum', defaultValue: 10_485_760, minimum: 1024, customValue: 2_097_152 },
  {
    variable: 'KB_UPLOAD_MAX_BYTES',
    field: 'knowledgeUploadBytesMaximum',
    defaultValue: 52_428_800,
    minimum: 1024,
    customValue: 2_097_152,
  },
  { variable: 'INGESTION_POLL_MS', field: 'ingestionPollMilliseconds', defaultValue: 500, minimum: 10, customValue: 50 },
  { variable: 'INGESTION_LEASE_MS', field: 'ingestionLeaseMilliseconds', defaultValue: 60_000, minimum: 1_000, customValue: 3_600_000 },
  { variable: 'INGESTION_ATTEMPTS_MAX', field: 'ingestionAttemptsMaximum', defaultValue: 3, minimum: 1, customValue: 5 },
  { variable: 'INGESTION_JOBS_IN_FLIGHT', field: 'ingestionJobsInFlightMaximum', defaultValue: 64, minimum: 1, customValue: 3 },
  { variable: 'INGESTION_CLAIM_BATCH_MAX', field: 'ingestionClaimBatchMaximum', defaultValue: 32, minimum: 1, customValue: 4 },
  { variable: 'INGESTION_TEXT_CLAIM_BATCH_MAX', field: 'ingestionTextClaimBatchMaximum', defaultValue: 256, minimum: 1, customValue: 8 },
  {
    variable: 'INGESTION_BYTES_IN_FLIGHT',
    field: 'ingestionBytesInFlightMaximum',
    defaultValue: 67_108_864,
    minimum: 1,
    customValue: 1_048_576,
  },
  { variable: 'INGESTION_WORKER_THREADS', field: 'ingestionWorkerThreads', defaultValue: 2, minimum: 1, customValue: 4 },
  { variable: 'INGESTION_WORKER_DOCUMENTS_MAX', field: 'ingestionWorkerDocumentsMaximum', defaultValue: 500, minimum: 1, customValue: 50 },
  { variable: 'INGESTION_WORKER_BATCH_MAX', field: 'ingestionWorkerBatchMaximum', defaultValue: 16, minimum: 1, customValue: 4 },
  { variable: 'INGESTION_WORKER_HEAP_MB', field: 'ingestionWorkerHeapMegabytes', defaultValue: 512, minimum: 16, customValue: 256 },
  { variable: 'INGESTION_WORKER_RSS_MB', field: 'ingestionWorkerResidentMegabytes', defaultValue: 1_024, minimum: 64, customValue: 2_048 },
  {
    variable: 'INGESTION_WORKER_TIMEOUT_MS',
    field: 'ingestionWorkerTimeoutMilliseconds',
    defaultValue: 120_000,
    minimum: 100,
    customValue: 30_000,
  },
  { variable: 'INGESTION_CHUNKS_MAX', field: 'ingestionChunksMaximum', defaultValue: 10_000, minimum: 1, customValue: 500 },
  {
    variable: 'INGESTION_ZIP_PART_MAX_BYTES',
    field: 'ingestionZipPartBytesMaximum',
    defaultValue: 67_108_864,
    minimum: 1024,
    customValue: 1_048_576,
  },
  {
    variable: 'INGESTION_ZIP_TOTAL_MAX_BYTES',
    field: 'ingestionZipTotalBytesMaximum',
    defaultValue: 134_217_728,
    minimum: 1024,
    customValue: 4_194_304,
  },
  {
    variable: 'INGESTION_PDF_INFLATED_MAX_BYTES',
    field: 'ingestionPdfInflatedBytesMaximum',
    defaultValue: 268_435_456,
    minimum: 1024,
    customValue: 8_388_608,
  },
  {
    variable: 'UPLOAD_LEFTOVER_GRACE_MS',
    field: 'uploadLeftoverGraceMilliseconds',
    defaultValue: 3_600_000,
    minimum: 0,
    customValue: 600_000,
  },
  { variable: 'UPLOAD_LEASE_MS', field: 'uploadLeaseMilliseconds', defaultValue: 60_000, minimum: 1_000, customValue: 5_000 },
  { variable: 'WEB_CRAWL_LEASE_MS', field: 'webCrawlLeaseMilliseconds', defaultValue: 60_000, minimum: 1_000, customValue: 5_000 },
  {
    variable: 'UPLOAD_SWEEP_INTERVAL_MS',
    field: 'uploadSweepIntervalMilliseconds',
    defaultValue: 600_000,
    minimum: 100,
    customValue: 30_000,
  },
  {
    variable: 'KB_JSON_BODY_MAX_BYTES',
    field: 'knowledgeJsonBodyBytesMaximum',
    defaultValue: 10_485_760,
    minimum: 1024,
    customValue: 65_536,
  },
  { variable: 'TOOL_TIMEOUT_MS', field: 'toolTimeoutMilliseconds', defaultValue: 10_000, minimum: 1, customValue: 250 },
  { variable: 'UPSTREAM_TIMEOUT_MS', field: 'upstreamTimeoutMilliseconds', defaultValue: 120_000, minimum: 1, customValue: 5_000 },
  { variable: 'EMBEDDING_TIMEOUT_MS', field: 'embeddingTimeoutMilliseconds', defaultValue: 60_000, minimum: 1, customValue: 1_500 },
  { variable: 'EMBEDDING_BATCH_SIZE', field: 'embeddingBatchSize', defaultValue: 64, minimum: 1, customValue: 8 },
  { variable: 'KB_SERVER_TIMEOUT_MS', field: 'knowledgeServerTimeoutMilliseconds', defaultValue: 10_000, minimum: 1, customValue: 750 },
  {
    variable: 'KB_SERVER_RESPONSE_MAX_BYTES',
    field: 'knowledgeServerResponseBytesMaximum',
    defaultValue: 8_388_608,
    minimum: 1_024,
    customValue: 65_536,
  },
  { variable: 'QUERY_REWRITE_TIMEOUT_MS', field: 'queryRewriteTimeoutMilliseconds', defaultValue: 5_000, minimum: 1, customValue: 300 },
  { variable: 'KB_JSON_DOCUMENTS_MAX', field: 'knowledgeJsonDocumentsMaximum', defaultValue: 100, minimum: 1, customValue: 3 },
  { variable: 'KB_JSON_WRITES_IN_FLIGHT', field: 'knowledgeJsonWritesInFlight', defaultValue: 16, minimum: 1, customValue: 2 },
  {
    variable: 'KB_JSON_STORED_TEXT_BYTES_MAX',
    field: 'knowledgeJsonStoredTextBytesMaximum',
    defaultValue: 65_536,
    minimum: 0,
    customValue: 1_024,
  },
  { variable: 'TOOL_LOOP_ITERATIONS', field: 'toolLoopIterations', defaultValue: 5, minimum: 1, customValue: 3 },
  { variable: 'TOOL_LOOP_ITERATIONS_MAX', field: 'toolLoopIterationsMaximum', defaultValue: 10, minimum: 1, customValue: 20 },
  { variable: 'TOOL_CALL_TIMEOUT_MS', field: 'toolCallTimeoutMilliseconds', defaultValue: 30_000, minimum: 1, customValue: 500 },
  {
    variable: 'TOOL_CALL_TIMEOUT_MAX_MS',
    field: 'toolCallTimeoutMillisecondsMaximum',
    defaultValue: 120_000,
    minimum: 1,
    customValue: 60_000,
  },
  { variable: 'TOOL_LOOP_TOTAL_MS', field: 'toolLoopTotalMilliseconds', defaultValue: 180_000, minimum: 1, customValue: 1_000 },
  {
    variable: 'TOOL_LOOP_TOTAL_MAX_MS',
    field: 'toolLoopTotalMillisecondsMaximum',
    defaultValue: 600_000,
    minimum: 1,
    customValue: 300_000,
  },
  { variable: 'TOOL_IDENTICAL_CALLS_MAX', field: 'toolIdenticalCallsMaximum', defaultValue: 2, minimum: 1, customValue: 1 },
  { variable: 'TOOL_RESULT_CHARS_MAX', field: 'toolResultCharactersMaximum', defaultValue: 20_000, minimum: 100, customValue: 500 },
  { variable: 'DEEP_ANALYSIS_PASSAGES', field: 'deepAnalysisPassages', defaultValue: 40, minimum: 1, customValue: 80 },
  { variable: 'DEEP_ANALYSIS_PASSAGES_MAX', field: 'deepAnalysisPassagesMaximum', defaultValue: 200, minimum: 1, customValue: 100 },
  { variable: 'DEEP_ANALYSIS_BATCH_PASSAGES', field: 'deepAnalysisBatchPassages', defaultValue: 8, minimum: 1, customValue: 4 },
  { variable: 'DEEP_ANALYSIS_BATCHES_MAX', field: 'deepAnalysisBatchesMaximum', defaultValue: 10, minimum: 1, customValue: 3 },
  { variable: 'DEEP_ANALYSIS_PARALLEL_BATCHES', field: 'deepAnalysisParallelBatches', defaultValue: 4, minimum: 1, customValue: 2 },
  { variable: 'DEEP_ANALYSIS_TOKENS_MAX', field: 'deepAnalysisTokensMaximum', defaultValue: 60_000, minimum: 100, customValue: 5_000 },
  { variable: 'DEEP_ANALYSIS_TIME_MS', field: 'deepAnalysisMilliseconds', defaultValue: 25_000, minimum: 1, customValue: 2_000 },
  {
    variable: 'DEEP_ANALYSIS_SUMMARY_TOKENS_MAX',
    field: 'deepAnalysisSummaryTokensMaximum',
    defaultValue: 400,
    minimum: 16,
    customValue: 200,
  },
  {
    variable: 'DEEP_ANALYSIS_ANSWER_TOKENS_MAX',
    field: 'deepAnalysisAnswerTokensMaximum',
    defaultValue: 1_000,
    minimum: 16,
    customValue: 500,
  },
  { variable: 'INTEGRATION_TIMEOUT_MS', field: 'integrationTimeoutMilliseconds', defaultValue: 10_000, minimum: 1, customValue: 250 },
  {
    variable: 'INTEGRATION_RESPONSE_MAX_BYTES',
    field: 'integrationResponseBytesMaximum',
    defaultValue: 4_194_304,
    minimum: 1_024,
    customValue: 65_536,
  },
  { variable: 'WEB_SEARCH_SEARCHES_MAX', field: 'webSearchSearchesMaximum', defaultValue: 3, minimum: 1, customValue: 1 },
  { variable: 'WEB_SEARCH_PAGES_MAX', field: 'webSearchPagesMaximum', defaultValue: 5, minimum: 0, customValue: 2 },
  { variable: 'WEB_PAGE_MAX_BYTES', field: 'webPageBytesMaximum', defaultValue: 2_097_152, minimum: 1_024, customValue: 65_536 },
  { variable: 'WEB_PAGE_TIMEOUT_MS', field: 'webPageTimeoutMilliseconds', defaultValue: 10_000, minimum: 1, customValue: 500 },
  { variable: 'WEB_PAGE_REDIRECTS_MAX', field: 'webPageRedirectsMaximum', defaultValue: 5, minimum: 0, customValue: 2 },
  { variable: 'WEB_PAGE_TEXT_MAX_CHARS', field: 'webPageTextCharactersMaximum', defaultValue: 6_000, minimum: 100, customValue: 500 },
  { variable: 'ASSISTANT_TOOL_TIMEOUT_MS', field: 'assistantToolTimeoutMilliseconds', defaultValue: 60_000, minimum: 1, customValue: 900 },
  { variable: 'ASSISTANT_TOOL_CALLS_MAX', field: 'assistantToolCallsMaximum', defaultValue: 6, minimum: 1, customValue: 2 },
  { variable: 'ASSISTANT_TOOL_TOTAL_MS', field: 'assistantToolTotalMilliseconds', defaultValue: 120_000, minimum: 1, customValue: 3_000 },
  {
    variable: 'ASSISTANT_TOOL_RESULT_CHARS_MAX',
    field: 'assistantToolResultCharactersMaximum',
    defaultValue: 8_000,
    minimum: 100,
    customValue: 300,
  },
  { variable: 'LOGIN_FAILURES_PER_ACCOUNT_MAX', field: 'loginFailuresPerAccountMaximum', defaultValue: 10, minimum: 1, customValue: 5 },
  { variable: 'LOGIN_FAILURES_PER_ADDRESS_MAX', field: 'loginFailuresPerAddressMaximum', defaultValue: 100, minimum: 1, customValue: 20 },
  { variable: 'LOGIN_FAILURE_WINDOW_SECONDS', field: 'loginFailureWindowSeconds', defaultValue: 900, minimum: 1, customValue: 60 },
  {
    variable: 'SIGN_UP_ATTEMPTS_PER_ADDRESS_MAX',
    field: 'signUpAttemptsPerAddressMaximum',
    defaultValue: 50,
    minimum: 1,
    customValue: 5,
  },
  { variable: 'SIGN_UP_WINDOW_SECONDS', field: 'signUpWindowSeconds', defaultValue: 3600, minimum: 1, customValue: 60 },
  { variable: 'CHAT_REQUESTS_PER_USER_MAX', field: 'chatRequestsPerUserMaximum', defaultValue: 600, minimum: 1, customValue: 30 },
  { variable: 'CHAT_REQUESTS_PER_API_KEY_MAX', field: 'chatRequestsPerApiKeyMaximum', defaultValue: 600, minimum: 1, customValue: 3_000 },
  { variable: 'CHAT_RATE_WINDOW_SECONDS', field: 'chatRateWindowSeconds', defaultValue: 60, minimum: 1, customValue: 3_600 },
];

describe.each(LIMITS)('the limit setting $variable', ({ variable, field, defaultValue, minimum, customValue }) => {
  it(`defaults to ${defaultValue} when unset or blank`, () => {
    expect(loadSettings({})[field]).toBe(defaultValue);
    expect(loadSettings({ [variable]: '' })[field]).toBe(defaultValue);
  });

  it(`is read from ${variable} when set`, () => {
    expect(loadSettings({ [variable]: String(customValue) })[field]).toBe(customValue);
    expect(loadSettings({ [variable]: ` ${customValue} ` })[field]).toBe(customValue);
  });

  it(`accepts its minimum ${minimum}`, () => {
    expect(loadSettings({ [variable]: String(minimum) })[field]).toBe(minimum);
  });

  it('is refused below its minimum with a SettingsError naming the variable', () => {
    const error = settingsErrorFor({ [variable]: String(minimum - 1) });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
  });

  it('is refused when it is not a whole number, with a SettingsError naming the variable', () => {
    for (const raw of ['abc', '1.5', '1e3', '-']) {
      const error = settingsErrorFor({ [variable]: raw });
      expect(error.variable).toBe(variable);
      expect(error.message).toContain(variable);
    }
  });
});

describe('loadSettings refuses bad values with a SettingsError naming the variable', () => {
  const badValues: ReadonlyArray<{ variable: string; value: string }> = [
    { variable: 'PORT', value: 'abc' },
    { variable: 'PORT', value: '70000' },
    { variable: 'PORT', value: '65536' },
    { variable: 'PORT', value: '-1' },
    { variable: 'LOG_LEVEL', value: 'loud' },
    { variable: 'DATABASE_URL', value: 'mysql://x' },
    { variable: 'DATABASE_URL', value: 'not a url' },
    { variable: 'MERINO_ADMIN_EMAIL', value: 'nope' },
    { variable: 'HOST', value: 'bad host name' },
  ];

  it.each(badValues)('$variable=$value', ({ variable, value }) => {
    const error = settingsErrorFor({ [variable]: value });
    expect(error.name).toBe('SettingsError');
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(variable);
  });

  it('accepts PORT 0 (any free port) and 65535', () => {
    expect(loadSettings({ PORT: '0' }).port).toBe(0);
    expect(loadSettings({ PORT: '65535' }).port).toBe(65535);
  });

  it('accepts every documented LOG_LEVEL', () => {
    for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
      expect(loadSettings({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
  });

  it('refuses MERINO_ADMIN_PASSWORD shorter than the default PASSWORD_MIN_LENGTH of 8, without echoing it', () => {
    const error = settingsErrorFor({ MERINO_ADMIN_PASSWORD: 'seven77' });
    expect(error.variable).toBe('MERINO_ADMIN_PASSWORD');
    expect(error.message).toContain('MERINO_ADMIN_PASSWORD');
    expect(error.message).not.toContain('seven77');
    expect(loadSettings({ MERINO_ADMIN_PASSWORD: 'eight888' }).adminPassword).toBe('eight888');
  });

  it('refuses MERINO_ADMIN_PASSWORD shorter than a raised PASSWORD_MIN_LENGTH', () => {
    const error = settingsErrorFor({ PASSWORD_MIN_LENGTH: '12', MERINO_ADMIN_PASSWORD: 'elevenchars' });
    expect(error.variable).toBe('MERINO_ADMIN_PASSWORD');
    expect(error.message).toContain('MERINO_ADMIN_PASSWORD');
    expect(loadSettings({ PASSWORD_MIN_LENGTH: '12', MERINO_ADMIN_PASSWORD: 'twelve-chars' }).adminPassword).toBe('twelve-chars');
  });
});

describe('an invalid DATABASE_URL never appears with its password in the error', () => {
  const invalidUrlsWithPassword = [
    'mysql://u:secretpw@h/db',
    'postgres://u:secretpw@h:notaport/db',
    'postgres://u:secretpw@h:99999/db',
    'http://u:secretpw@h/db',
    'postgres://u:secretpw@[not-an-ip/db',
  ];

  it.each(invalidUrlsWithPassword)('%s', (url) => {
    const error = settingsErrorFor({ DATABASE_URL: url });
    expect(error.variable).toBe('DATABASE_URL');
    expect(error.message).toContain('DATABASE_URL');
    expect(error.message).not.toContain('secretpw');
    expect(error.stack ?? '').not.toContain('secretpw');
  });
});

describe('the provider and secret settings', () => {
  it('names MERINO_SECRET_KEY when it is too short, without echoing it', () => {
    expect(() => loadSettings({ MERINO_SECRET_KEY: 'short-secret' })).toThrow(/Invalid setting MERINO_SECRET_KEY/);
    expect(() => loadSettings({ MERINO_SECRET_KEY: 'short-secret' })).not.toThrow(/short-secret/);
    expect(loadSettings({ MERINO_SECRET_KEY: 'a-long-enough-secret-key' }).secretKey).toBe('a-long-enough-secret-key');
  });

  it.each(['OPENAI_BASE_URL', 'OLLAMA_BASE_URL'])('names %s when it is not an http(s) URL', (variable) => {
    expect(() => loadSettings({ [variable]: 'ftp://models.example' })).toThrow(new RegExp(`Invalid setting ${variable}`));
    expect(() => loadSettings({ [variable]: 'not a url' })).toThrow(new RegExp(`Invalid setting ${variable}`));
  });

  it('reads provider defaults, trimming a trailing slash, with Ollama on localhost by default', () => {
    const settings = loadSettings({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1/' });
    expect(settings).toMatchObject({
      openaiApiKey: 'sk-x',
      openaiBaseUrl: 'http://127.0.0.1:8000/v1',
      ollamaBaseUrl: 'http://127.0.0.1:11434',
    });
    expect(loadSettings({}).openaiApiKey).toBeUndefined();
  });
});

describe('TRUST_PROXY', () => {
  it('is off unless set, and reads true/false, a hop count or a list of proxy addresses and ranges', () => {
    expect(loadSettings({}).trustProxy).toBe(false);
    expect(loadSettings({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadSettings({ TRUST_PROXY: 'False' }).trustProxy).toBe(false);
    expect(loadSettings({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadSettings({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,::1' }).trustProxy).toEqual(['10.0.0.1', '10.1.0.0/16', '::1']);
  });

  it.each(['yes', 'proxy.example.org', '10.0.0.1/16/2', ',', '10.0.0.1;rm'])('refuses %s naming the variable', (value) => {
    expect(settingsErrorFor({ TRUST_PROXY: value }).variable).toBe('TRUST_PROXY');
  });
});

describe('TRUST_FORWARDED_USER_HEADERS', () => {
  it('is off unless set, reads true/false/1/0, and refuses anything else naming the variable', () => {
    expect(loadSettings({}).trustForwardedUserHeaders).toBe(false);
    expect(loadSettings({ TRUST_FORWARDED_USER_HEADERS: 'true' }).trustForwardedUserHeaders).toBe(true);
    expect(loadSettings({ TRUST_FORWARDED_USER_HEADERS: '1' }).trustForwardedUserHeaders).toBe(true);
    expect(loadSettings({ TRUST_FORWARDED_USER_HEADERS: 'FALSE' }).trustForwardedUserHeaders).toBe(false);
    expect(() => loadSettings({ TRUST_FORWARDED_USER_HEADERS: 'yes please' })).toThrow(/TRUST_FORWARDED_USER_HEADERS/);
  });
});

describe('OUTBOUND_ALLOWED_HOSTS', () => {
  it('is empty unless set, and reads a comma-separated list of host names and addresses in lower case', () => {
    expect(loadSettings({}).outboundAllowedHosts).toEqual([]);
    expect(loadSettings({ OUTBOUND_ALLOWED_HOSTS: ' LAMB-KB , 10.0.0.5,::1,kb.campus.internal ' }).outboundAllowedHosts).toEqual([
      'lamb-kb',
      '10.0.0.5',
      '::1',
      'kb.campus.internal',
    ]);
  });

  it.each(['http://kb.internal', 'kb.internal:9090', '10.0.0.5/8', 'kb internal'])('refuses %s naming the variable', (value) => {
    expect(settingsErrorFor({ OUTBOUND_ALLOWED_HOSTS: value }).variable).toBe('OUTBOUND_ALLOWED_HOSTS');
  });
});
