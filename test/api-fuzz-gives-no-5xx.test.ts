/**
 * Proves, on both stores, that thousands of requests generated from the server's own /openapi.json
 * (every operation; real, foreign and hostile ids; valid, boundary and broken bodies; malformed
 * transport and multipart; anonymous, learner, creator, organization admin and system admin) never
 * get a 5xx, never drop a connection, always get error JSON with a code on a 4xx, and leave the
 * server answering. The seed is fixed, so a failure names a request that can be sent again.
 * Model providers and Open-Meteo are fakes on loopback; no request leaves 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllamaServer, type FakeOllamaServer } from './fakes/fake-ollama-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { startFakeOpenMeteoServer, type FakeOpenMeteoServer } from './fakes/fake-open-meteo-server.js';
import { casesFor, operationsOf, sendingOrder, type FuzzCase } from './support/fuzz-cases.js';
import { sendAll, type FuzzOutcome } from './support/fuzz-transport.js';
import { buildFuzzWorld, type FuzzWorld } from './support/fuzz-world.js';
import { seededRandom } from './support/seeded-random.js';
import { TEST_DIALECTS, type Dialect } from './support/test-databases.js';
import { request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const SEED = 0x6d65_7269;
const CONCURRENCY = 8;
/** SQLite is the default store and carries the full run; PostgreSQL a smaller one, to keep CI short. */
const REQUESTS_PER_DIALECT: Record<Dialect, number> = { sqlite: 5_600, postgres: 4_500 };
const RUN_TIMEOUT_MS = 240_000;
/** The chat endpoints run the deepest code (tools, connectors, streams), so they get more of the requests. */
const OPERATION_WEIGHTS: Record<string, number> = { 'POST /v1/chat/completions': 4, 'POST /lamb/v1/completions': 2 };
/** pino's level number for `error`. */
const LOG_LEVEL_ERROR = 50;

/** Why an outcome is not an acceptable answer, or undefined when it is. */
function problemWith(outcome: FuzzOutcome): string | undefined {
  if (outcome.transportError !== undefined) return `no response: ${outcome.transportError}`;
  if (outcome.closedWithoutAnswer === true) return undefined;
  const status = outcome.status!;
  if (status >= 500) return `status ${status}`;
  // A stream that started well can still fail inside: its error chunk must never be our own fault.
  if (
    status < 400 &&
    (outcome.contentType ?? '').includes('text/event-stream') &&
    /"code":"(?:internal_error|store_unavailable)"/.test(outcome.text ?? '')
  ) {
    return 'a stream holding a server-fault error chunk';
  }
  if (status < 400) return undefined;
  if (!(outcome.contentType ?? '').includes('application/json')) return `a ${status} with content-type ${outcome.contentType}`;
  let body: any;
  try {
    body = JSON.parse(outcome.text ?? '');
  } catch {
    return `a ${status} whose body is not JSON`;
  }
  if (typeof body?.error?.code !== 'string' || body.error.code === '') return `a ${status} without error.code`;
  if (typeof body.error.message !== 'string') return `a ${status} without error.message`;
  if (/node_modules|\.ts:\d|\.js:\d+:\d+/.test(outcome.text ?? '')) return `a ${status} holding a stack trace`;
  return undefined;
}

function describeCase(fuzzCase: FuzzCase): string {
  const body =
    fuzzCase.body === undefined ? '' : typeof fuzzCase.body === 'string' ? fuzzCase.body : Buffer.from(fuzzCase.body).toString('latin1');
  const contentType = fuzzCase.headers['content-type'] ?? '(none)';
  return `${fuzzCase.method} ${fuzzCase.url.slice(0, 160)} as ${fuzzCase.role} [${fuzzCase.variant}] content-type ${contentType} body ${JSON.stringify(body.slice(0, 300))}`;
}

/** The server's log line for a failed request (error name, code and stack frames), found by its request id. */
function serverSideOf(server: TestServer, outcome: FuzzOutcome): string {
  const requestId = /"request_id":"([^"]+)"/.exec(outcome.text ?? '')?.[1];
  if (requestId === undefined) return '';
  const lines = server.logLines.filter((entry) => entry.includes(requestId)).map((entry) => JSON.parse(entry));
  const failed = lines.find((logged) => logged.msg === 'request failed');
  const others = lines.filter((logged) => logged !== failed && logged.level >= 40).map((logged) => JSON.stringify(logged).slice(0, 400));
  if (failed === undefined && others.length === 0) return '';
  return `\n    server: ${failed?.errorName ?? ''} ${failed?.errorCode ?? ''}\n${String(failed?.frames ?? '')
    .split('\n')
    .slice(0, 6)
    .join('\n')}${others.map((line) => `\n    also logged: ${line}`).join('')}`;
}

function tally(outcomes: readonly FuzzOutcome[], key: (outcome: FuzzOutcome) => string): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) counts.set(key(outcome), (counts.get(key(outcome)) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([name, count]) => `${name}: ${count}`)
    .join(', ');
}

describe.each(TEST_DIALECTS)('generated requests to every operation in /openapi.json on %s', (dialect) => {
  let server: TestServer;
  let openAi: FakeOpenAiServer;
  let ollama: FakeOllamaServer;
  let openMeteo: FakeOpenMeteoServer;
  let world: FuzzWorld;
  let outcomes: FuzzOutcome[] = [];
  let operationLabels: string[] = [];

  beforeAll(async () => {
    [openAi, ollama, openMeteo] = await Promise.all([startFakeOpenAiServer(), startFakeOllamaServer(), startFakeOpenMeteoServer()]);
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-fuzz-server-key',
        OPENAI_BASE_URL: openAi.baseUrl,
        OLLAMA_BASE_URL: ollama.baseUrl,
        OPEN_METEO_GEOCODING_URL: openMeteo.geocodingUrl,
        OPEN_METEO_FORECAST_URL: openMeteo.forecastUrl,
        // The fakes listen on loopback; any other internal address an organization names is refused.
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        INGESTION_POLL_MS: '50',
        // Anything a generated setting points at fails fast instead of holding a request open.
        UPSTREAM_TIMEOUT_MS: '5000',
        TOOL_TIMEOUT_MS: '3000',
        INTEGRATION_TIMEOUT_MS: '3000',
        KB_SERVER_TIMEOUT_MS: '3000',
        EMBEDDING_TIMEOUT_MS: '3000',
      },
    });
    world = await buildFuzzWorld(server, { openai: openAi.baseUrl, ollama: ollama.baseUrl });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await Promise.all([possiblyUnset(openAi)?.close(), possiblyUnset(ollama)?.close(), possiblyUnset(openMeteo)?.close()]);
  });

  it(
    'get no 5xx, drop no connection, and answer every 4xx with error JSON carrying a code',
    async () => {
      const document = (await request(server, 'GET', '/openapi.json')).body;
      const operations = operationsOf(document);
      operationLabels = operations.map((operation) => operation.label);
      expect(operations.length).toBeGreaterThan(40);
      const random = seededRandom(SEED);
      const weightOf = (label: string) => OPERATION_WEIGHTS[label] ?? 1;
      const perWeight = Math.ceil(
        REQUESTS_PER_DIALECT[dialect] / operations.reduce((sum, operation) => sum + weightOf(operation.label), 0),
      );
      const cases = sendingOrder(
        operations.flatMap((operation) => casesFor(operation, world, random, Math.ceil(perWeight * weightOf(operation.label)))),
        random,
      );

      const logLinesBefore = server.logLines.length;
      const started = performance.now();
      outcomes = await sendAll(server.baseUrl, cases, CONCURRENCY);
      const seconds = (performance.now() - started) / 1000;

      console.log(
        [
          `API fuzz on ${dialect}: ${outcomes.length} requests over ${operations.length} operations (seed ${SEED}, ${CONCURRENCY} at a time) in ${seconds.toFixed(1)} s`,
          `  statuses: ${tally(outcomes, (outcome) => (outcome.status === undefined ? (outcome.closedWithoutAnswer ? 'closed' : 'dropped') : String(outcome.status)))}`,
          `  roles: ${tally(outcomes, (outcome) => outcome.fuzzCase.role)}`,
          `  event streams answered: ${outcomes.filter((outcome) => (outcome.contentType ?? '').includes('text/event-stream')).length}`,
          `  operations that never succeeded: ${operationLabels.filter((label) => !outcomes.some((outcome) => outcome.fuzzCase.label === label && (outcome.status ?? 500) < 300)).join(', ') || 'none'}`,
          `  slowest: ${[...outcomes]
            .sort((left, right) => (right.milliseconds ?? 0) - (left.milliseconds ?? 0))
            .slice(0, 3)
            .map((outcome) => `${outcome.milliseconds} ms ${outcome.fuzzCase.label} [${outcome.fuzzCase.variant}]`)
            .join('; ')}`,
        ].join('\n'),
      );

      const failures = outcomes
        .map((outcome) => ({ outcome, problem: problemWith(outcome) }))
        .filter((entry): entry is { outcome: FuzzOutcome; problem: string } => entry.problem !== undefined)
        .map(
          ({ outcome, problem }) =>
            `${problem}: ${describeCase(outcome.fuzzCase)}\n    answer: ${(outcome.text ?? '').slice(0, 300)}${serverSideOf(server, outcome)}`,
        );
      // A 5xx sent to a client that already left is still a failure; the server's own log shows it.
      const failuresLogged = server.logLines.slice(logLinesBefore).filter((line) => JSON.parse(line).level >= LOG_LEVEL_ERROR);
      expect(outcomes.length).toBeGreaterThanOrEqual(REQUESTS_PER_DIALECT[dialect]);
      expect(failures.slice(0, 25), `${failures.length} unacceptable answers; the first ones:`).toEqual([]);
      expect(
        failuresLogged.slice(0, 10).map((line) => line.slice(0, 600)),
        `${failuresLogged.length} failures in the server's log`,
      ).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );

  it('reached every operation, most of them past authentication', () => {
    const reachedPastAuthentication = new Set(
      outcomes.filter((outcome) => outcome.status !== undefined && outcome.status !== 401).map((outcome) => outcome.fuzzCase.label),
    );
    const missed = operationLabels.filter((label) => !reachedPastAuthentication.has(label));
    expect(operationLabels.length).toBeGreaterThan(0);
    expect(missed).toEqual([]);
    const succeeded = new Set(
      outcomes.filter((outcome) => outcome.status !== undefined && outcome.status < 300).map((outcome) => outcome.fuzzCase.label),
    );
    // A fuzz run that never gets past validation proves little; most operations must also have succeeded.
    expect(succeeded.size).toBeGreaterThan(operationLabels.length * 0.8);
  });

  it('leaves the server answering /healthz and an authenticated request', async () => {
    const health = await request(server, 'GET', '/healthz');
    expect(health.status, health.text).toBe(200);
    const me = await request(server, 'GET', '/api/me', { token: world.tokens['system-admin'] });
    expect(me.status, me.text).toBe(200);
    const models = await request(server, 'GET', '/v1/models', { token: world.tokens.creator });
    expect(models.status, models.text).toBe(200);
  });
});
