/**
 * Runs `merino <command>` (src/main.ts, compiled once per run by compiled-source.ts) as a child process over a test database, as
 * an administrator would from a shell: the same environment a server of that database gets
 * (DATA_DIR, DATABASE_URL, MERINO_SECRET_KEY), optional standard input, and its exit status and
 * both outputs back.
 */
import { spawn } from 'node:child_process';
import { inject } from 'vitest';
import type { TestDatabase } from './test-databases.js';

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  /** Written to the command's standard input, which is then closed. */
  input?: string;
  /** Set over the database's environment (for example another DATABASE_URL). */
  environment?: Record<string, string>;
}

export async function runMerino(
  database: TestDatabase,
  commandLine: readonly string[],
  options: CommandOptions = {},
): Promise<CommandResult> {
  const child = spawn(process.execPath, [inject('compiledMain'), ...commandLine], {
    env: { PATH: process.env.PATH ?? '', ...database.environment, ...options.environment },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { status, stdout, stderr };
}
