/**
 * Proves the server process's life as an operator sees it: the first start prints a generated
 * admin password once (and nowhere in the logs), later starts do not, a bad setting stops the
 * process with a message naming it, and SIGTERM lets an in-flight request finish before exiting,
 * also when it comes during start-up.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const START_TIMEOUT_MILLISECONDS = 60_000;

interface RunningServer {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function launch(environment: Record<string, string>): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: RunningServer['exited'];
} {
  const child = spawn(process.execPath, [inject('compiledMain')], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...environment },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** The time of the first JSON log line whose message matches, or a failed expectation. */
function logTimeOf(output: string, message: RegExp): number {
  const times = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time?: number; msg?: string })
    .filter((entry) => typeof entry.msg === 'string' && message.test(entry.msg))
    .map((entry) => entry.time);
  expect(times.length, `no log line matching ${String(message)} in:\n${output}`).toBeGreaterThan(0);
  expect(typeof times[0]).toBe('number');
  return times[0]!;
}

/** `expectBanner`: a fresh store prints the admin banner right after listening; wait for its last line. */
async function startServer(environment: Record<string, string>, expectBanner = false): Promise<RunningServer> {
  const launched = launch(environment);
  const started = Date.now();
  for (;;) {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(launched.output());
    if (match?.[1] && (!expectBanner || /Log in at/.test(launched.output()))) {
      return { ...launched, baseUrl: match[1] };
    }
    if (Date.now() - started > START_TIMEOUT_MILLISECONDS) throw new Error(`server did not start:\n${launched.output()}`);
    if (launched.child.exitCode !== null) throw new Error(`server exited:\n${launched.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopServer(server: RunningServer): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  server.child.kill('SIGTERM');
  return server.exited;
}

describe.each(TEST_DIALECTS)('the server process on %s', { timeout: 150_000 }, (dialect) => {
  let database: TestDatabase;
  let environment: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    environment = database.environment;
  });

  afterAll(async () => {
    await possiblyUnset(database)?.drop();
  });

  it('prints a generated admin password once on a fresh store, never in a log line, and it logs in', async () => {
    const server = await startServer(environment, true);
    const output = server.output();
    const password = /password:\s+(\S+)/.exec(output)?.[1];
    expect(password).toBeDefined();
    const linesWithPassword = output.split('\n').filter((line) => line.includes(password!));
    expect(linesWithPassword).toHaveLength(1);
    expect(linesWithPassword[0]!.trim().startsWith('{')).toBe(false);
    const login = await request(server, 'POST', '/api/auth/login', { body: { email: 'admin@merino.local', password } });
    expect(login.status).toBe(200);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
  });

  it('prints no password when the store already has users', async () => {
    const server = await startServer(environment);
    expect(await stopServer(server)).toEqual({ code: 0, signal: null });
    // Checked after exit, so a banner written late would still be seen.
    expect(server.output()).not.toMatch(/password/i);
  });

  it('stops cleanly on a SIGTERM that comes while it is still starting, once it has started', async () => {
    const launched = launch(environment);
    // The store is ready well before the server listens: the signal lands in the middle of start-up.
    await expect.poll(() => launched.output(), { timeout: START_TIMEOUT_MILLISECONDS, interval: 5 }).toContain('"msg":"store ready"');
    launched.child.kill('SIGTERM');
    expect(await launched.exited).toEqual({ code: 0, signal: null });
    expect(launched.output()).toContain('stop requested while starting');
    // By the lines' own times: pino writes asynchronously (SonicBoom) and flushes what is left
    // synchronously at exit, so lines need not reach the output in the order they were logged.
    const listened = logTimeOf(launched.output(), /^Server listening at /);
    const stopped = logTimeOf(launched.output(), /^stopped$/);
    expect(listened).toBeLessThanOrEqual(stopped);
  });

  it('finishes an in-flight request on SIGTERM, then exits cleanly', async () => {
    // A login at the default cost spends a deliberate scrypt hash, so it is still running when the signal arrives.
    const server = await startServer({ ...environment, PASSWORD_HASH_COST: '15' });
    const inFlight = request(server, 'POST', '/api/auth/login', { body: { email: 'admin@merino.local', password: 'wrong-password' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(401);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('"msg":"stopped"');
  });
});

describe('a bad setting', () => {
  it('stops the process with exit code 78 and a message naming the variable', async () => {
    const launched = launch({ PORT: 'not-a-port', DATA_DIR: '/tmp/merino-never-used' });
    expect(await launched.exited).toEqual({ code: 78, signal: null });
    expect(launched.output()).toContain('Invalid setting PORT');
  });

  it('refuses PostgreSQL without a shared MERINO_SECRET_KEY before connecting, saying why', async () => {
    const launched = launch({ DATABASE_URL: 'postgres://merino:pw-never-shown@127.0.0.1:1/merino', DATA_DIR: '/tmp/merino-never-used' });
    expect(await launched.exited).toEqual({ code: 78, signal: null });
    expect(launched.output()).toContain('Invalid setting MERINO_SECRET_KEY: must be set when DATABASE_URL is set');
    expect(launched.output()).not.toContain('pw-never-shown');
  });

  it('names MERINO_ADMIN_EMAIL when it is not an email address', async () => {
    const launched = launch({ MERINO_ADMIN_EMAIL: 'nobody', DATA_DIR: '/tmp/merino-never-used' });
    expect(await launched.exited).toEqual({ code: 78, signal: null });
    expect(launched.output()).toContain('Invalid setting MERINO_ADMIN_EMAIL');
  });
});
