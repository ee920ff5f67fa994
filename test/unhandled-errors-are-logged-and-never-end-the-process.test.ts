/**
 * Proves the process policy: an unhandled rejection and an uncaught exception are each logged
 * (kind and frames, never the message) and the process keeps running.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeErrorSafely } from '../src/process/process-policy.js';

const SCRIPT = fileURLToPath(new URL('./support/unhandled-errors-script.ts', import.meta.url));
const SECRET = 'my-password-is-hunter2-and-my-grade-is-F';

function runScript(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, SECRET], { env: { PATH: process.env.PATH ?? '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('errors nobody handled', () => {
  it('are logged without their message and the process keeps running', async () => {
    const { code, output } = await runScript();
    expect(output).toContain('still alive');
    expect(code).toBe(0);
    const entries = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; error: { kind: string; frames: string[] } });
    expect(entries.map((entry) => entry.msg)).toEqual([
      'unhandled promise rejection; the process keeps running',
      'uncaught exception; the process keeps running',
    ]);
    expect(entries.map((entry) => entry.error.kind)).toEqual(['Error', 'TypeError']);
    expect(entries[0]?.error.frames.length).toBeGreaterThan(0);
    expect(output).not.toContain('hunter2');
  });

  it('are described by kind, code and frames, even when the message spans several lines', () => {
    const error = Object.assign(new Error(`first line\n    at fake frame holding ${SECRET}\nlast line`), { code: 'E_SOMETHING' });
    const description = describeErrorSafely(error);
    expect(description.kind).toBe('Error');
    expect(description.code).toBe('E_SOMETHING');
    expect(description.frames.length).toBeGreaterThan(0);
    expect(description.frames.every((frame) => frame.startsWith('at '))).toBe(true);
    expect(description.frames.join('\n')).not.toContain(SECRET);
    expect(describeErrorSafely('a thrown string')).toEqual({ kind: 'string', frames: [] });
  });
});
