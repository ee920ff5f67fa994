/**
 * Runs the real server (`src/main.ts`) as a child process over a test database, for tests that
 * must kill it with SIGKILL mid-way (durability: leftovers, leases) and then start another
 * server over the same store and data folder.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { inject } from 'vitest';
import type { TestDatabase } from './test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from './test-server.js';

const START_TIMEOUT_MILLISECONDS = 60_000;

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** Where it listens; empty for `worker`, which serves no HTTP. */
  baseUrl: string;
  output(): string;
  /** Sends SIGKILL and resolves once the process is gone (reaped, so its pid no longer exists). */
  kill(): Promise<void>;
}

/**
 * Starts `src/main.ts` on a free port over `database`, with the test administrator; resolves once
 * it listens. `command` is the command line after `main.ts` (`['worker']` starts a worker, which
 * resolves once it says it is ready). DATA_DIR in `environment` gives the process its own folder.
 */
export async function startServerProcess(
  database: TestDatabase,
  environment: Record<string, string> = {},
  command: readonly string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [inject('compiledMain'), ...command], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      ...database.environment,
      MERINO_ADMIN_EMAIL: ADMIN_EMAIL,
      MERINO_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...environment,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const started = Date.now();
  for (;;) {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)|(worker ready)/.exec(output);
    if (match) {
      return {
        child,
        baseUrl: match[1] ?? '',
        output: () => output,
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
      };
    }
    if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
    if (Date.now() - started > START_TIMEOUT_MILLISECONDS) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
