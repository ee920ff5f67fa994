/**
 * Side-by-side benchmark of issue 17: Merino against a bare LLM gateway (Portkey's open-source
 * gateway) in front of the same mock provider, each its own process, all on loopback.
 *
 *   npm run bench:gateway
 *
 * It installs `@portkey-ai/gateway@1.15.2` with the hono packages it needs pinned into a scratch
 * folder outside the repository (reused when already there), builds nothing itself (the npm script
 * compiles `dist/` first), starts the mock (bench/support/mock-openai-server.ts), the gateway and
 * Merino on a fresh SQLite folder, creates a classic `no_rag` assistant and a multi-tool assistant
 * (single_file_rag over a 20,000-character file plus simple_rag over a ~200-chunk knowledge base),
 * then measures the targets interleaved, phase by phase, for BENCH_ROUNDS rounds, and prints the
 * issue's table of medians with the ratios the targets name, and a soak of Merino classic on a
 * fresh Merino process of its own (the others stopped first), so that its idle figure is true.
 *
 * Settings (environment; the defaults are the issue's figures, smaller ones make a quick run):
 *   BENCH_ROUNDS=2 BENCH_SERIAL_REQUESTS=300 BENCH_CONCURRENT_REQUESTS=2000 BENCH_CONCURRENCY=32
 *   BENCH_BURST_STREAMS=200 BENCH_STREAMS=1000 BENCH_SOAK_STREAMS=500 BENCH_SOAK_SECONDS=60
 *   BENCH_SOAK_IDLE_SECONDS=15 BENCH_CPU_PROFILE=<folder> (runs Merino with --cpu-prof into it)
 *
 * Figures are printed, never asserted on. Every answer is checked whole (the 64 deltas in order),
 * and the mock refuses a multi-tool prompt that lacks the file's or the knowledge base's text, so a
 * failure is counted rather than measured as a fast request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request as undiciRequest } from 'undici';
import { ascending, percentile, wholeNumberSetting } from './support/measure.js';
import {
  FILE_MARKER,
  KNOWLEDGE_MARKER,
  MOCK_ANSWER,
  MOCK_DELTA_INTERVAL_MS,
  MOCK_DELTAS,
  MOCK_MODEL,
  MULTI_TOOL_MARKER,
} from './support/mock-answer.js';

const ROUNDS = wholeNumberSetting('BENCH_ROUNDS', 2);
const SERIAL_REQUESTS = wholeNumberSetting('BENCH_SERIAL_REQUESTS', 300);
const CONCURRENT_REQUESTS = wholeNumberSetting('BENCH_CONCURRENT_REQUESTS', 2_000);
const CONCURRENCY = wholeNumberSetting('BENCH_CONCURRENCY', 32);
const BURST_STREAMS = wholeNumberSetting('BENCH_BURST_STREAMS', 200);
const STREAMS = wholeNumberSetting('BENCH_STREAMS', 1_000);
const SOAK_STREAMS = wholeNumberSetting('BENCH_SOAK_STREAMS', 500);
const SOAK_SECONDS = wholeNumberSetting('BENCH_SOAK_SECONDS', 60);
const SOAK_IDLE_SECONDS = wholeNumberSetting('BENCH_SOAK_IDLE_SECONDS', 15);
/** Seconds the soak's fresh Merino sits idle after its set-up before its idle RSS is read. */
const SOAK_SETTLE_SECONDS = 5;
const CPU_PROFILE_FOLDER = process.env.BENCH_CPU_PROFILE;
/** Requests sent to each target before each measured series and not counted: pools and JIT warm up. */
const WARM_UP_REQUESTS = 30;
/** A frame that arrives more than this after the previous one stalled (the mock sends one every 20 ms). */
const STALL_MS = 100;
/** No single request of the benchmark may take longer; a hung one is counted as an error. */
const REQUEST_TIMEOUT_MS = 60_000;

const GATEWAY_PACKAGES = ['@portkey-ai/gateway@1.15.2', 'hono@4.9.7', '@hono/node-server@1.13.5', '@hono/node-ws@1.2.0'];
const GATEWAY_FOLDER = path.join(os.tmpdir(), 'merino-bench-gateway');
const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROVIDER_KEY = 'sk-bench-provider-key-0123456789';
const ADMIN_EMAIL = 'bench-admin@merino.test';
const ADMIN_PASSWORD = 'bench-admin-password-0123';
const QUESTION = 'How do cells turn glucose into energy?';
const FILE_CHARACTERS = 20_000;
const KNOWLEDGE_PASSAGES = 200;

type TargetName = 'direct' | 'portkey' | 'classic' | 'multi';
const TARGETS: readonly TargetName[] = ['direct', 'portkey', 'classic', 'multi'];
const HEADINGS: Record<TargetName, string> = {
  direct: 'direct',
  portkey: 'Portkey',
  classic: 'Merino classic',
  multi: 'Merino multi-tool',
};

interface Target {
  name: TargetName;
  url: string;
  headers: Record<string, string>;
  model: string;
  /** The server process whose CPU and memory are read; undefined for the mock itself. */
  pid: number | undefined;
}

// ---------------------------------------------------------------------------------------------
// Processes

const children: ChildProcess[] = [];

function stopChildren(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopChildren);
process.on('SIGINT', () => process.exit(130));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function start(command: string, args: string[], options: { cwd: string; environment?: Record<string, string> }): ChildProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stderr.on('data', (data: Buffer) => process.stderr.write(`[${path.basename(args.at(-1) ?? command)}] ${data.toString()}`));
  return child;
}

async function waitForHttp(url: string, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${seconds} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function installedVersion(name: string): string | undefined {
  try {
    const file = path.join(GATEWAY_FOLDER, 'node_modules', name, 'package.json');
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

async function ensureGateway(): Promise<string> {
  const wanted = GATEWAY_PACKAGES.map((spec) => {
    const at = spec.lastIndexOf('@');
    return { name: spec.slice(0, at), version: spec.slice(at + 1) };
  });
  if (wanted.some((entry) => installedVersion(entry.name) !== entry.version)) {
    console.log(`Installing ${GATEWAY_PACKAGES.join(' ')} into ${GATEWAY_FOLDER} …`);
    fs.mkdirSync(GATEWAY_FOLDER, { recursive: true });
    fs.writeFileSync(path.join(GATEWAY_FOLDER, 'package.json'), '{"name":"merino-bench-gateway","private":true}\n');
    const installer = spawn('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...GATEWAY_PACKAGES], {
      cwd: GATEWAY_FOLDER,
      stdio: 'inherit',
    });
    const code = await new Promise<number | null>((resolve) => installer.on('exit', resolve));
    if (code !== 0) throw new Error(`npm install of the gateway failed with exit code ${code}`);
  }
  return path.join(GATEWAY_FOLDER, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
}

async function startMock(): Promise<{ url: string; pid: number }> {
  const child = start(process.execPath, ['--import', 'tsx', path.join(REPOSITORY, 'bench', 'support', 'mock-openai-server.ts')], {
    cwd: REPOSITORY,
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (data: Buffer) => {
      text += data.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.on('exit', (code) => reject(new Error(`the mock ended with code ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 };
}

async function startPortkey(script: string, mockUrl: string): Promise<Target> {
  const port = await freePort();
  const child = start(process.execPath, [script, `--port=${port}`, '--headless'], {
    cwd: GATEWAY_FOLDER,
    environment: { NODE_ENV: 'production', TRUSTED_CUSTOM_HOSTS: '127.0.0.1,localhost' },
  });
  child.stdout?.resume();
  await waitForHttp(`http://127.0.0.1:${port}/`, 60);
  return {
    name: 'portkey',
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: {
      authorization: `Bearer ${PROVIDER_KEY}`,
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${mockUrl}/v1`,
    },
    model: MOCK_MODEL,
    pid: child.pid,
  };
}

// ---------------------------------------------------------------------------------------------
// Merino and its assistants

async function api<Body = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  route: string,
  options: { token?: string; body?: unknown; form?: FormData } = {},
): Promise<Body> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    },
    body: options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return (text === '' ? {} : JSON.parse(text)) as Body;
}

function courseFile(): string {
  const parts = [`# Course notes\n\nReference ${FILE_MARKER}.\n`];
  for (let section = 1; parts.join('').length < FILE_CHARACTERS; section += 1)
    parts.push(
      `\n## Section ${section}\n\nLesson ${section} explains how structure and function depend on each other. ` +
        `Students compare examples, write short answers and check them against the worked solutions.\n`,
    );
  return parts.join('').slice(0, FILE_CHARACTERS);
}

/** About 560 characters a passage: one passage a chunk at a chunk size of 700, two passages being too long for one. */
function knowledgeText(): string {
  const passages: string[] = [];
  for (let index = 0; index < KNOWLEDGE_PASSAGES; index += 1)
    passages.push(
      `${KNOWLEDGE_MARKER}${index}: cells turn glucose into energy in passage ${index}. ` +
        `Respiration releases the energy stored in glucose, and the cells keep it as ATP for their work. ` +
        `Topic ${index % 17} of the unit adds examples from plants, animals and fungi, with questions to try. `.padEnd(360, '.') +
        ` ${KNOWLEDGE_MARKER}${index}.`,
    );
  return passages.join('\n\n');
}

async function waitForJob(baseUrl: string, token: string, knowledgeBase: number, job: number): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const body = await api<{ status: string; error?: string }>(baseUrl, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${job}`, {
      token,
    });
    if (body.status === 'completed') return;
    if (body.status === 'failed' || body.status === 'cancelled') throw new Error(`ingestion ${body.status}: ${body.error ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('ingestion did not end within 60 s');
}

async function startMerino(mockUrl: string): Promise<{ classic: Target; multi: Target; pid: number }> {
  const port = await freePort();
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'merino-bench-data-'));
  const nodeArguments = CPU_PROFILE_FOLDER === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROFILE_FOLDER)}`];
  const child = start(process.execPath, [...nodeArguments, path.join(REPOSITORY, 'dist', 'main.js')], {
    cwd: REPOSITORY,
    environment: {
      PORT: String(port),
      DATA_DIR: dataDirectory,
      MERINO_ADMIN_EMAIL: ADMIN_EMAIL,
      MERINO_ADMIN_PASSWORD: ADMIN_PASSWORD,
      OPENAI_BASE_URL: `${mockUrl}/v1`,
      OPENAI_API_KEY: PROVIDER_KEY,
      LOG_LEVEL: 'warn',
      // The benchmark measures the pipeline, not the per-user chat rate limit, which would refuse most of its load.
      CHAT_REQUESTS_PER_USER_MAX: '1000000',
      CHAT_REQUESTS_PER_API_KEY_MAX: '1000000',
    },
  });
  child.stdout?.resume();
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/api/health`, 60);
  const token = (
    await api<{ token: string }>(baseUrl, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })
  ).token;
  const key = (await api<{ key: string }>(baseUrl, 'POST', '/api/api-keys', { token, body: { name: 'gateway comparison' } })).key;

  const form = new FormData();
  form.append('file', new Blob([courseFile()], { type: 'text/markdown' }), 'course-notes.md');
  const filePath = (await api<{ file_path: string }>(baseUrl, 'POST', '/api/files', { token, form })).file_path;
  const knowledgeBase = (
    await api<{ id: number }>(baseUrl, 'POST', '/api/knowledge-bases', {
      token,
      body: { name: 'Cell biology', chunk_size: 700, chunk_overlap: 0 },
    })
  ).id;
  const queued = await api<{ documents: { job_id: number }[] }>(baseUrl, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
    token,
    body: { documents: [{ text: knowledgeText(), metadata: { title: 'Energy in cells' } }] },
  });
  for (const document of queued.documents) await waitForJob(baseUrl, token, knowledgeBase, document.job_id);
  const chunks = (await api<{ chunk_count?: number }>(baseUrl, 'GET', `/api/knowledge-bases/${knowledgeBase}`, { token })).chunk_count;

  const classic = await api<{ id: number }>(baseUrl, 'POST', '/api/assistants', {
    token,
    body: {
      name: 'Classic tutor',
      system_prompt: 'You are a patient biology tutor.',
      prompt_template: '{user_input}',
      metadata: { connector: 'openai', llm: MOCK_MODEL, rag_processor: 'no_rag' },
    },
  });
  const multi = await api<{ id: number }>(baseUrl, 'POST', '/api/assistants', {
    token,
    body: {
      name: 'Multi-tool tutor',
      system_prompt: `You are a patient biology tutor (${MULTI_TOOL_MARKER}). Answer from the notes and passages.`,
      prompt_template: 'Course notes:\n{file}\n\nPassages:\n{context}\n\nQuestion: {user_input}',
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: MOCK_MODEL,
        verbose: true,
        tools: [
          { type: 'single_file_rag', enabled: true, config: { file_path: filePath } },
          { type: 'simple_rag', enabled: true, config: { collections: [String(knowledgeBase)] } },
        ],
      },
    },
  });
  console.log(`Merino: knowledge base of ${chunks ?? '?'} chunks, file of ${FILE_CHARACTERS} characters.`);
  const headers = { authorization: `Bearer ${key}` };
  const url = `${baseUrl}/v1/chat/completions`;
  return {
    classic: { name: 'classic', url, headers, model: `lamb_assistant.${classic.id}`, pid: child.pid },
    multi: { name: 'multi', url, headers, model: `lamb_assistant.${multi.id}`, pid: child.pid },
    pid: child.pid ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Load

const agent = new Agent({ connections: 4_000, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 });

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
async function streamOnce(target: Target): Promise<StreamResult> {
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

/** CPU time (user + system) a process has used, in milliseconds, from /proc. */
function cpuMilliseconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMebibytes(pid: number): number {
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

interface Failures {
  errors: number;
  firstError?: string;
}

function failed(failures: Failures, error: unknown): void {
  failures.errors += 1;
  failures.firstError ??= error instanceof Error ? error.message : String(error);
}

let mockUrl = '';

async function setPaced(paced: boolean): Promise<void> {
  await api(mockUrl, 'POST', '/control', { body: { paced } });
}

interface LatencyFigures extends Failures {
  p50: number;
  p99: number;
}

async function serialLatency(target: Target): Promise<LatencyFigures> {
  const failures: Failures = { errors: 0 };
  await pool(WARM_UP_REQUESTS, 1, () => completeOnce(target).catch((error: unknown) => failed(failures, error)));
  const latencies: number[] = [];
  await pool(SERIAL_REQUESTS, 1, async () => {
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

interface ThroughputFigures extends Failures {
  requestsPerSecond: number;
  cpuPerRequestMs: number;
}

async function throughput(target: Target): Promise<ThroughputFigures> {
  const failures: Failures = { errors: 0 };
  await pool(WARM_UP_REQUESTS * 4, CONCURRENCY, () => completeOnce(target).catch((error: unknown) => failed(failures, error)));
  const cpuBefore = target.pid === undefined ? 0 : cpuMilliseconds(target.pid);
  const seconds = await pool(CONCURRENT_REQUESTS, CONCURRENCY, () =>
    completeOnce(target).catch((error: unknown) => failed(failures, error)),
  );
  const cpu = target.pid === undefined ? 0 : cpuMilliseconds(target.pid) - cpuBefore;
  return { ...failures, requestsPerSecond: CONCURRENT_REQUESTS / seconds, cpuPerRequestMs: cpu / CONCURRENT_REQUESTS };
}

interface StreamBurstFigures extends Failures {
  firstTokenP50: number;
  firstTokenP99: number;
  lostFrames: number;
  stalledFrames: number;
  peakRss: number;
}

/** `count` streams opened at once; their first tokens, lost and stalled frames, and the server's peak RSS. */
async function streamBurst(target: Target, count: number): Promise<StreamBurstFigures> {
  const failures: Failures = { errors: 0 };
  const firstTokens: number[] = [];
  let lostFrames = 0;
  let stalledFrames = 0;
  const stopWatching = watchRss(target.pid);
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
  const sorted = ascending(firstTokens);
  return {
    ...failures,
    firstTokenP50: percentile(sorted, 0.5),
    firstTokenP99: percentile(sorted, 0.99),
    lostFrames,
    stalledFrames,
    peakRss,
  };
}

// ---------------------------------------------------------------------------------------------
// Rounds, medians and the table

interface RoundFigures {
  serial: LatencyFigures;
  throughput: ThroughputFigures;
  burst: StreamBurstFigures;
  streams: StreamBurstFigures;
}

function median(values: readonly number[]): number {
  const sorted = ascending(values);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function format(value: number, digits = 2): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

interface Summary {
  addedP50: number;
  addedP99: number;
  requestsPerSecond: number;
  cpuPerRequestMs: number;
  burstAddedFirstToken: number;
  streamsAddedP50: number;
  streamsAddedP99: number;
  stalled: number;
  lost: number;
  errors: number;
  rssLow: number;
  rssHigh: number;
}

function summarize(rounds: readonly Record<TargetName, RoundFigures>[], name: TargetName): Summary {
  const of = (pick: (round: Record<TargetName, RoundFigures>) => number): number => median(rounds.map(pick));
  const peaks = rounds.map((round) => round[name].streams.peakRss);
  return {
    addedP50: of((round) => round[name].serial.p50 - round.direct.serial.p50),
    addedP99: of((round) => round[name].serial.p99 - round.direct.serial.p99),
    requestsPerSecond: of((round) => round[name].throughput.requestsPerSecond),
    cpuPerRequestMs: of((round) => round[name].throughput.cpuPerRequestMs),
    burstAddedFirstToken: of((round) => round[name].burst.firstTokenP50 - round.direct.burst.firstTokenP50),
    streamsAddedP50: of((round) => round[name].streams.firstTokenP50 - round.direct.streams.firstTokenP50),
    streamsAddedP99: of((round) => round[name].streams.firstTokenP99 - round.direct.streams.firstTokenP99),
    stalled: of((round) => round[name].streams.stalledFrames),
    lost: of((round) => round[name].streams.lostFrames),
    errors: rounds.reduce(
      (sum, round) =>
        sum + round[name].serial.errors + round[name].throughput.errors + round[name].burst.errors + round[name].streams.errors,
      0,
    ),
    rssLow: Math.min(...peaks),
    rssHigh: Math.max(...peaks),
  };
}

function printTable(summaries: Record<TargetName, Summary>): void {
  const row = (measure: string, cell: (summary: Summary, name: TargetName) => string): string =>
    `| ${measure} | ${TARGETS.map((name) => cell(summaries[name], name)).join(' | ')} |`;
  const gatewayOnly = (cell: (summary: Summary) => string) => (summary: Summary, name: TargetName) =>
    name === 'direct' ? '–' : cell(summary);
  const lines = [
    `| measure | ${TARGETS.map((name) => HEADINGS[name]).join(' | ')} |`,
    `|---|${TARGETS.map(() => '---').join('|')}|`,
    row(
      'concurrency 1, added p50 / p99 ms',
      gatewayOnly((summary) => `${format(summary.addedP50)} / ${format(summary.addedP99, 1)}`),
    ),
    row(`concurrency ${CONCURRENCY}, requests/s`, (summary) => format(summary.requestsPerSecond, 0)),
    row(
      'server CPU per request, ms',
      gatewayOnly((summary) => format(summary.cpuPerRequestMs)),
    ),
    row(
      `${BURST_STREAMS} streams at once, added time to first token p50`,
      gatewayOnly((summary) => `${format(summary.burstAddedFirstToken, 0)} ms`),
    ),
    row(
      `${STREAMS} streams at once, added TTFT p50 / p99`,
      gatewayOnly((summary) => `${format(summary.streamsAddedP50, 0)} ms / ${format(summary.streamsAddedP99, 0)} ms`),
    ),
    row(`${STREAMS} streams, stalled frames (gap > ${STALL_MS} ms)`, (summary) => format(summary.stalled, 0)),
    row(`${STREAMS} streams, lost frames`, (summary) => format(summary.lost, 0)),
    row(
      'peak RSS under load',
      gatewayOnly((summary) => `${format(summary.rssLow, 0)}–${format(summary.rssHigh, 0)} MiB`),
    ),
    row('failed requests (all phases, all rounds)', (summary) => String(summary.errors)),
  ];
  console.log(`\n${lines.join('\n')}\n`);
}

function ratio(value: number, reference: number): string {
  return reference === 0 ? 'n/a' : format(value / reference);
}

function printRatios(summaries: Record<TargetName, Summary>): void {
  const { portkey, classic, multi } = summaries;
  const check = (met: boolean): string => (met ? 'met' : 'NOT met');
  const lines = [
    `classic added latency / Portkey's: p50 ${ratio(classic.addedP50, portkey.addedP50)}, p99 ${ratio(classic.addedP99, portkey.addedP99)} (target ≤ 0.5): ${check(classic.addedP50 <= portkey.addedP50 / 2 && classic.addedP99 <= portkey.addedP99 / 2)}`,
    `multi-tool added latency / Portkey's: p50 ${ratio(multi.addedP50, portkey.addedP50)}, p99 ${ratio(multi.addedP99, portkey.addedP99)} (target ≤ 1): ${check(multi.addedP50 <= portkey.addedP50 && multi.addedP99 <= portkey.addedP99)}`,
    `classic requests/s / Portkey's: ${ratio(classic.requestsPerSecond, portkey.requestsPerSecond)} (target ≥ 2): ${check(classic.requestsPerSecond >= 2 * portkey.requestsPerSecond)}`,
    `multi-tool requests/s / Portkey's: ${ratio(multi.requestsPerSecond, portkey.requestsPerSecond)} (target ≥ 1): ${check(multi.requestsPerSecond >= portkey.requestsPerSecond)}`,
  ];
  for (const [label, summary] of [
    ['classic', classic],
    ['multi-tool', multi],
  ] as const) {
    lines.push(
      `${label} ${STREAMS}-stream added TTFT / Portkey's: p50 ${ratio(summary.streamsAddedP50, portkey.streamsAddedP50)}, p99 ${ratio(summary.streamsAddedP99, portkey.streamsAddedP99)} (target ≤ 0.5): ${check(summary.streamsAddedP50 <= portkey.streamsAddedP50 / 2 && summary.streamsAddedP99 <= portkey.streamsAddedP99 / 2)}`,
      `${label} stalled frames / Portkey's: ${ratio(summary.stalled, portkey.stalled)} (target ≤ 0.5): ${check(summary.stalled <= portkey.stalled / 2)}; lost frames ${summary.lost} (target 0): ${check(summary.lost === 0)}`,
      `${label} peak RSS under ${STREAMS} streams: ${format(summary.rssHigh, 0)} MiB (target ≤ 250): ${check(summary.rssHigh <= 250)}`,
    );
  }
  console.log(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------
// Soak

/**
 * How much the samples grew over their span, in percent of their mean, read from the
 * least-squares line through them: RSS under load rises and falls with every collection, so two
 * single samples say more about where each fell in that cycle than about growth.
 */
function trendGrowthPercent(samples: readonly { second: number; rss: number }[]): number {
  if (samples.length < 2) return 0;
  const meanSecond = samples.reduce((sum, sample) => sum + sample.second, 0) / samples.length;
  const meanRss = samples.reduce((sum, sample) => sum + sample.rss, 0) / samples.length;
  let covariance = 0;
  let variance = 0;
  for (const sample of samples) {
    covariance += (sample.second - meanSecond) * (sample.rss - meanRss);
    variance += (sample.second - meanSecond) ** 2;
  }
  const span = (samples.at(-1)?.second ?? 0) - (samples[0]?.second ?? 0);
  return variance === 0 ? 0 : ((covariance / variance) * span * 100) / meanRss;
}

async function soak(target: Target): Promise<void> {
  if (SOAK_SECONDS === 0 || target.pid === undefined) return;
  const pid = target.pid;
  await setPaced(true);
  const idleBefore = rssMebibytes(pid);
  const samples: { second: number; rss: number }[] = [];
  const started = performance.now();
  const sampler = setInterval(() => samples.push({ second: (performance.now() - started) / 1000, rss: rssMebibytes(pid) }), 1000);
  const failures: Failures = { errors: 0 };
  let streams = 0;
  let lost = 0;
  let stalled = 0;
  const ends = started + SOAK_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: SOAK_STREAMS }, async () => {
      while (performance.now() < ends) {
        try {
          const result = await streamOnce(target);
          lost += MOCK_DELTAS - result.frames;
          stalled += result.stalled;
        } catch (error) {
          failed(failures, error);
        }
        streams += 1;
      }
    }),
  );
  clearInterval(sampler);
  const atEnd = rssMebibytes(pid);
  await new Promise((resolve) => setTimeout(resolve, SOAK_IDLE_SECONDS * 1000));
  const idleAfter = rssMebibytes(pid);
  const growth = trendGrowthPercent(samples.filter((sample) => sample.second >= SOAK_SECONDS - 30));
  const everyTen = samples.filter((_, index) => index % 10 === 9).map((sample) => format(sample.rss, 0));
  console.log(
    `\nSoak of ${HEADINGS[target.name]}: ${SOAK_STREAMS} concurrent streams in a closed loop for ${SOAK_SECONDS} s\n` +
      `  streams ${streams}, errors ${failures.errors}${failures.firstError === undefined ? '' : ` (first: ${failures.firstError})`}, ` +
      `lost frames ${lost}, stalled frames (gap > ${STALL_MS} ms) ${stalled}\n` +
      `  RSS idle before ${format(idleBefore, 0)} MiB; every 10 s ${everyTen.join(' → ')} MiB; at the end ${format(atEnd, 0)} MiB\n` +
      `  RSS growth over the last 30 s (least-squares trend of the samples): ${format(growth, 1)} % (target ≤ 5 %); ` +
      `${SOAK_IDLE_SECONDS} s after the load ${format(idleAfter, 0)} MiB, ${format(((idleAfter - idleBefore) / idleBefore) * 100, 1)} % over idle (target ≤ 20 %)`,
  );
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(REPOSITORY, 'dist', 'main.js')))
    throw new Error('dist/main.js is missing: run `npm run bench:gateway`, which builds it');
  const gatewayScript = await ensureGateway();
  const mock = await startMock();
  mockUrl = mock.url;
  const targets: Record<TargetName, Target> = {
    direct: {
      name: 'direct',
      url: `${mock.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${PROVIDER_KEY}` },
      model: MOCK_MODEL,
      pid: undefined,
    },
    portkey: await startPortkey(gatewayScript, mock.url),
    ...(await startMerino(mock.url)),
  };
  console.log(
    `Targets interleaved, ${ROUNDS} rounds, medians; ${SERIAL_REQUESTS} requests at concurrency 1, ${CONCURRENT_REQUESTS} at ${CONCURRENCY}; ` +
      `${BURST_STREAMS} and ${STREAMS} streams at once of ${MOCK_DELTAS} deltas ${MOCK_DELTA_INTERVAL_MS} ms apart.`,
  );
  const rounds: Record<TargetName, RoundFigures>[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const figures = {} as Record<TargetName, Partial<RoundFigures>>;
    for (const name of TARGETS) figures[name] = {};
    await setPaced(false);
    for (const name of TARGETS) figures[name].serial = await serialLatency(targets[name]);
    for (const name of TARGETS) figures[name].throughput = await throughput(targets[name]);
    await setPaced(true);
    for (const name of TARGETS) figures[name].burst = await streamBurst(targets[name], BURST_STREAMS);
    for (const name of TARGETS) figures[name].streams = await streamBurst(targets[name], STREAMS);
    rounds.push(figures as Record<TargetName, RoundFigures>);
    for (const name of TARGETS) {
      const all = figures[name] as RoundFigures;
      const firstError = [all.serial, all.throughput, all.burst, all.streams].find((entry) => entry.firstError)?.firstError;
      if (firstError !== undefined) console.log(`round ${round}, ${HEADINGS[name]}: first failure: ${firstError}`);
    }
    console.log(`round ${round} of ${ROUNDS} done`);
  }
  const summaries = {} as Record<TargetName, Summary>;
  for (const name of TARGETS) summaries[name] = summarize(rounds, name);
  printTable(summaries);
  printRatios(summaries);
  if (SOAK_SECONDS > 0) {
    // The soak gets a fresh Merino of its own, alone on the machine, so its idle figure is a
    // process that has served nothing yet rather than one the rounds left large.
    for (const name of ['portkey', 'classic'] as const) if (targets[name].pid !== undefined) process.kill(targets[name].pid, 'SIGTERM');
    const fresh = await startMerino(mock.url);
    await new Promise((resolve) => setTimeout(resolve, SOAK_SETTLE_SECONDS * 1000));
    await soak(fresh.classic);
  }
  await agent.close();
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    stopChildren();
    // Lets --cpu-prof write its profile (it does on SIGTERM's exit) before this process leaves.
    setTimeout(() => process.exit(), 2_000).unref();
  });
