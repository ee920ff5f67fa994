/**
 * Starts a real Merino server on 127.0.0.1 (random port) over a fresh SQLite or PostgreSQL
 * database, with a known administrator and its ingestion runner running, and a tiny JSON client
 * for tests that speak real HTTP.
 */
import { Writable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { request as undiciRequest } from 'undici';
import { bootstrapAdmin } from '../../src/auth/admin-bootstrap.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { startLeftoverSweeps, sweepCrashLeftovers } from '../../src/process/crash-leftovers.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/http/logger.js';
import { loadRegistries } from '../../src/pipeline/plugin-loading/registries.js';
import { createServices, type Services } from '../../src/services.js';
import { startBackgroundWork, stopBackgroundWork } from '../../src/process/background-work.js';
import { openMigratedStore } from '../../src/process/server-start.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './test-databases.js';

export const ADMIN_EMAIL = 'admin@merino.test';
export const ADMIN_PASSWORD = 'admin-password-for-tests';

export interface TestServer {
  baseUrl: string;
  store: Store;
  services: Services;
  app: FastifyInstance;
  database: TestDatabase;
  /** Every log line the server wrote, as raw JSON text. */
  logLines: string[];
  close(): Promise<void>;
}

export interface TestServerOptions {
  environment?: Record<string, string>;
  /** Runs over this existing database (another server's) instead of a fresh one; close() then leaves it in place. */
  database?: TestDatabase;
}

export async function startTestServer(dialect: Dialect, options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase(dialect, { migrated: true }));
  const ownsDatabase = options.database === undefined;
  const settings: Settings = loadSettings({
    PORT: '0',
    ...database.environment,
    MERINO_ADMIN_EMAIL: ADMIN_EMAIL,
    MERINO_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: 'info',
    // The fakes that stand in for organizations' providers, knowledge-base servers and Moodle
    // listen on loopback; suites about the outbound guard set this to '' to see it refuse them.
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    // Suites read usage logs and traces straight from the store as soon as an answer ends; batched
    // writing is proven on its own (test/run-records-are-written-in-batches-and-on-stop.test.ts).
    RUN_RECORD_WINDOW_MS: '0',
    ...options.environment,
  });
  const store = await openMigratedStore(settings);
  await bootstrapAdmin(store.db, settings.adminEmail, settings.adminPassword, settings.passwordHashCost);
  const logLines: string[] = [];
  const logSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const logger = createLogger(settings.logLevel, logSink);
  const registries = await loadRegistries({ info: (message) => logger.info(message), error: (message) => logger.error(message) });
  const services = createServices(store, settings, registries);
  // What main.ts does at start-up, so a test server that follows a killed one sees the same sweep.
  await sweepCrashLeftovers(services, logger);
  const leftoverSweeps = startLeftoverSweeps(services, logger);
  const app = await buildApp(services, { logger });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  startBackgroundWork(services, logger, { serving: true, ingesting: settings.ingestionInWeb });
  return {
    baseUrl: address,
    store,
    services,
    app,
    database,
    logLines,
    async close() {
      // Tests are over when they close their server: connections still open (a client that read a
      // whole body while the server side had not yet ended) are cut rather than waited for.
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
      await leftoverSweeps.stop();
      await stopBackgroundWork(services);
      await store.close();
      if (ownsDatabase) await database.drop();
    },
  };
}

export interface JsonResponse<Body = any> {
  status: number;
  body: Body;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** The answer's headers as a fetch `Headers`, each repeated header (Set-Cookie) kept apart. */
function headersOf(received: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(received)) {
    for (const each of [value ?? []].flat()) headers.append(name, each);
  }
  return headers;
}

/**
 * One request over real HTTP with undici's `request` rather than `fetch`: the suite sends tens of
 * thousands of them, and fetch's web streams and per-request objects cost about a third more CPU.
 */
export async function request<Body = any>(
  server: { baseUrl: string },
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<JsonResponse<Body>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const response = await undiciRequest(`${server.baseUrl}${path}`, { method, headers, body: payload });
  const text = await response.body.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.statusCode, body: body as Body, headers: headersOf(response.headers), text };
}

export async function login(server: { baseUrl: string }, email: string, password: string): Promise<string> {
  const response = await request(server, 'POST', '/api/auth/login', { body: { email, password } });
  if (response.status !== 200) throw new Error(`login of ${email} failed with ${response.status}: ${response.text}`);
  return response.body.token as string;
}

export async function loginAsAdmin(server: { baseUrl: string }): Promise<string> {
  return login(server, ADMIN_EMAIL, ADMIN_PASSWORD);
}

export interface CreatedUser {
  id: number;
  email: string;
  password: string;
  token: string;
}

/** Creates a user through the API (as `adminToken`) and logs them in. */
export async function createUser(
  server: { baseUrl: string },
  adminToken: string,
  fields: { email: string; role: 'admin' | 'creator' | 'learner'; organization_id?: number; password?: string; name?: string },
): Promise<CreatedUser> {
  const password = fields.password ?? `${fields.email}-password`;
  const response = await request(server, 'POST', '/api/users', { token: adminToken, body: { ...fields, password } });
  if (response.status !== 201) throw new Error(`creating ${fields.email} failed with ${response.status}: ${response.text}`);
  return { id: response.body.id, email: fields.email, password, token: await login(server, fields.email, password) };
}
