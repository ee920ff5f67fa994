/**
 * The load the gateway comparison puts on each target and what it reads back: requests one at a
 * time, requests at a concurrency, and streams opened at once, each answer checked whole, with the
 * server's CPU time and RSS read from /proc. Figures are returned, never judged here.
 */
import fs from 'node:fs';
import { Agent, request as undiciRequest } from 'undici';
import { ascending, percentile } from './measure.js';
import { MOCK_ANSWER, MOCK_DELTAS } from './mock-answer.js';
import { api, type Target } from './gateway-targets.js';

/** What every request asks: it matches every chunk of the multi-tool assistant's knowledge base. */
export const QUESTION = 'How do cells turn glucose into energy?';
/** Requests sent to each target before each measured series and not counted: pools and JIT warm up. */
const WARM_UP_REQUESTS = 30;
/** A frame that arrives more than this after the previous one stalled (the mock sends one every 20 ms). */
export const STALL_MS = 100;
/** No single request of the benchmark may take longer; a hung one is counted as an error. */
const REQUEST_TIMEOUT_MS = 60_000;

export const agent = new Agent({ connections: 4_000, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 });

function bodyFor(target: Target, stream: boolean): string {
  return JSON.stringify({ model: target.model, messages: [{ role: 'user', content: QUESTION }], stream });
}

async function completeOnce(target: Target): Promise<void> {
  const response = await undiciRequest(target.url, {
    method: 'POST',
    dispatcher: agent,
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: bodyFor(target, false),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}: ${text.slice(0, 200)}`);
  const content = (JSON.parse(text) as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message?.content;
  if (content !== MOCK_ANSWER) throw new Error('the answer did not arrive whole');
}

interface StreamResult {
  firstTokenMs: number;
  frames: number;
  stalled: number;
}

/** One stream: the time to its first content delta, how many deltas arrived and how many came late. */
export async function streamOnce(target: Target): Promise<StreamResult> {
  const begin = performance.now();
  const response = await undiciRequest(target.url, {
    method: 'POST',
    dispatcher: agent,
    headers: { ...target.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: bodyFor(target, true),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}: ${(await response.body.text()).slice(0, 200)}`);
  let pending = '';
  let text = '';
  let frames = 0;
  let stalled = 0;
  let firstTokenMs = -1;
  let last = 0;
  for await (const piece of response.body) {
    const now = performance.now();
    pending += (piece as Buffer).toString('utf8');
    let end = pending.indexOf('\n\n');
    while (end !== -1) {
      const event = pending.slice(0, end);
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '[DONE]') continue;
        const content = (JSON.parse(data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content;
        if (!content) continue;
        if (firstTokenMs < 0) firstTokenMs = now - begin;
        else if (now - last > STALL_MS) stalled += 1;
        last = now;
        frames += 1;
        text += content;
      }
    }
  }
  if (text !== MOCK_ANSWER.slice(0, text.length)) throw new Error('the deltas arrived out of order');
  return { firstTokenMs, frames, stalled };
}

/** CPU time (user + system) of process `pid`, or of its thread `threadId` alone (a process's main thread has the process's id), in milliseconds, from /proc. */
export function cpuMilliseconds(pid: number, threadId?: number): number {
  const path = threadId === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${threadId}/stat`;
  const fields = fs.readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU milliseconds so far of the target's server and, on PostgreSQL, of the database processes
 * serving it, by pid: a request's cost includes the store's work for it, as on SQLite, where that
 * work runs inside the server. Empty for the mock.
 */
export async function serverCpuByProcess(target: Target): Promise<Map<number, number>> {
  if (target.pid === undefined) return new Map();
  return cpuMillisecondsByProcess([target.pid, ...((await target.storeProcessIds?.()) ?? [])]);
}

/** CPU milliseconds so far of each process that can still be read, by pid (one that ended meanwhile, or runs on another machine, is left out). */
export function cpuMillisecondsByProcess(pids: readonly number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      used.set(pid, cpuMilliseconds(pid));
    } catch {
      // Not readable here.
    }
  }
  return used;
}

/** CPU milliseconds spent between two readings; a process that started between them counts whole. */
export function cpuSpentMilliseconds(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let spent = 0;
  for (const [pid, milliseconds] of after) spent += milliseconds - (before.get(pid) ?? 0);
  return spent;
}

export function rssMebibytes(pid: number): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line?.replace(/\D/g, '') ?? 0) / 1024;
}

/** Samples a process's RSS every 100 ms until stopped; answers the peak. */
function watchRss(pid: number | undefined): () => number {
  if (pid === undefined) return () => 0;
  let peak = rssMebibytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMebibytes(pid))), 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMebibytes(pid));
  };
}

async function pool(count: number, concurrency: number, task: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        next += 1;
        await task();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

export interface Failures {
  errors: number;
  firstError?: string;
}

export function failed(failures: Failures, error: unknown): void {
  failures.errors += 1;
  failures.firstError ??= error instanceof Error ? error.message : String(error);
}

/** Tells the mock to pace its deltas (streams) or send them at once (whole answers). */
export async function setPaced(mockUrl: string, paced: boolean): Promise<void> {
  await api(mockUrl, 'POST', '/control', { body: { paced } });
}

export interface LatencyFigures extends Failures {
  p50: number;
  p99: number;
}

export async function serialLatency(target: Target, count: number): Promise<LatencyFigures> {
  const failures: Failures = { errors: 0 };
  await pool(WARM_UP_REQUESTS, 1, () => completeOnce(target).catch((error: unknown) => failed(failures, error)));
  const latencies: number[] = [];
  await pool(count, 1, async () => {
    const begin = performance.now();
    try {
      await completeOnce(target);
      latencies.push(performance.now() - begin);
    } catch (error) {
      failed(failures, error);
    }
  });
  const sorted = ascending(latencies);
  return { ...failures, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

export interface ThroughputFigures extends Failures {
  requestsPerSecond: number;
  cpuPerRequestMs: number;
}

export async function throughput(target: Target, count: number, concurrency: number): Promise<ThroughputFigures> {
  const failures: Failures = { errors: 0 };
  await pool(WARM_UP_REQUESTS * 4, concurrency, () => completeOnce(target).catch((error: unknown) => failed(failures, error)));
  const cpuBefore = await serverCpuByProcess(target);
  const seconds = await pool(count, concurrency, () => completeOnce(target).catch((error: unknown) => failed(failures, error)));
  const cpu = cpuSpentMilliseconds(cpuBefore, await serverCpuByProcess(target));
  return { ...failures, requestsPerSecond: count / seconds, cpuPerRequestMs: cpu / count };
}

export interface StreamBurstFigures extends Failures {
  firstTokenP50: number;
  firstTokenP99: number;
  lostFrames: number;
  stalledFrames: number;
  peakRss: number;
  /** The server's CPU for the whole burst over its streams: what one stream of 64 deltas costs it. */
  cpuPerStreamMs: number;
}

/** `count` streams opened at once; their first tokens, lost and stalled frames, and the server's peak RSS. */
export async function streamBurst(target: Target, count: number): Promise<StreamBurstFigures> {
  const failures: Failures = { errors: 0 };
  const firstTokens: number[] = [];
  let lostFrames = 0;
  let stalledFrames = 0;
  const stopWatching = watchRss(target.pid);
  const cpuBefore = await serverCpuByProcess(target);
  await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const result = await streamOnce(target);
        firstTokens.push(result.firstTokenMs);
        lostFrames += MOCK_DELTAS - result.frames;
        stalledFrames += result.stalled;
      } catch (error) {
        failed(failures, error);
      }
    }),
  );
  const peakRss = stopWatching();
  const cpu = cpuSpentMilliseconds(cpuBefore, await serverCpuByProcess(target));
  const sorted = ascending(firstTokens);
  return {
    ...failures,
    firstTokenP50: percentile(sorted, 0.5),
    firstTokenP99: percentile(sorted, 0.99),
    lostFrames,
    stalledFrames,
    peakRss,
    cpuPerStreamMs: cpu / count,
  };
}
