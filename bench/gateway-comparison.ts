/**
 * Side-by-side benchmark of issue 17: Merino against a bare LLM gateway (Portkey's open-source
 * gateway) in front of the same mock provider, each its own process, all on loopback.
 *
 *   npm run bench:gateway
 *
 * It installs `@portkey-ai/gateway@1.15.2` with the hono packages it needs pinned into a scratch
 * folder outside the repository (reused when already there), builds nothing itself (the npm script
 * compiles `dist/` first), starts the mock (bench/support/mock-openai-server.ts), the gateway and
 * two Merinos, each on a fresh SQLite folder (or, with BENCH_DIALECT=postgres, a fresh database of
 * a throw-away PostgreSQL cluster, whose processes' CPU counts as the server's): one for a classic `no_rag` assistant, one for a
 * multi-tool assistant (single_file_rag over a 20,000-character file plus simple_rag over a
 * ~200-chunk knowledge base),
 * then measures the targets interleaved, phase by phase, for BENCH_ROUNDS rounds, and prints the
 * issue's table of medians with the ratios the targets name, and a soak of Merino classic on a
 * fresh Merino process of its own (the others stopped first), so that its idle figure is true.
 *
 * Settings (environment; the defaults are the issue's figures, smaller ones make a quick run):
 *   BENCH_ROUNDS=2 BENCH_SERIAL_REQUESTS=300 BENCH_CONCURRENT_REQUESTS=2000 BENCH_CONCURRENCY=32
 *   BENCH_BURST_STREAMS=200 BENCH_STREAMS=1000 BENCH_SOAK_STREAMS=500 BENCH_SOAK_SECONDS=60
 *   BENCH_SOAK_IDLE_SECONDS=40 BENCH_WARM_UP_REQUESTS=1500
 *   BENCH_CPU_PROFILE=<folder> (runs Merino with --cpu-prof into it) BENCH_DIALECT=sqlite|postgres
 *
 * Figures are printed, never asserted on. Every answer is checked whole (the 64 deltas in order),
 * and the mock refuses a multi-tool prompt that lacks the file's or the knowledge base's text, so a
 * failure is counted rather than measured as a fast request.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  ensureGateway,
  PROVIDER_KEY,
  REPOSITORY,
  startMerino,
  startMock,
  startPortkey,
  stopChildren,
  type Target,
  type TargetName,
} from './support/gateway-targets.js';
import {
  agent,
  failed,
  rssMebibytes,
  serialLatency,
  setPaced,
  STALL_MS,
  streamBurst,
  streamOnce,
  throughput,
  type Failures,
  type LatencyFigures,
  type StreamBurstFigures,
  type ThroughputFigures,
} from './support/load-measures.js';
import { ascending, wholeNumberSetting } from './support/measure.js';
import { MOCK_DELTA_INTERVAL_MS, MOCK_DELTAS, MOCK_MODEL } from './support/mock-answer.js';

const ROUNDS = wholeNumberSetting('BENCH_ROUNDS', 2);
const SERIAL_REQUESTS = wholeNumberSetting('BENCH_SERIAL_REQUESTS', 300);
const CONCURRENT_REQUESTS = wholeNumberSetting('BENCH_CONCURRENT_REQUESTS', 2_000);
const CONCURRENCY = wholeNumberSetting('BENCH_CONCURRENCY', 32);
const BURST_STREAMS = wholeNumberSetting('BENCH_BURST_STREAMS', 200);
const STREAMS = wholeNumberSetting('BENCH_STREAMS', 1_000);
const SOAK_STREAMS = wholeNumberSetting('BENCH_SOAK_STREAMS', 500);
const SOAK_SECONDS = wholeNumberSetting('BENCH_SOAK_SECONDS', 60);
const SOAK_IDLE_SECONDS = wholeNumberSetting('BENCH_SOAK_IDLE_SECONDS', 40);
/**
 * Requests (and half as many streams) each target serves once before the first round and are not
 * counted: V8 needs on the order of a thousand requests to compile a server's hot paths, and the
 * rounds should compare steady states, not how far each process got with its compiling.
 */
const WARM_UP_REQUESTS = wholeNumberSetting('BENCH_WARM_UP_REQUESTS', 1_500);
/** Seconds the soak's fresh Merino sits idle after its set-up before its idle RSS is read. */
const SOAK_SETTLE_SECONDS = 5;
const CPU_PROFILE_FOLDER = process.env.BENCH_CPU_PROFILE;

const TARGETS: readonly TargetName[] = ['direct', 'portkey', 'classic', 'multi'];
const HEADINGS: Record<TargetName, string> = {
  direct: 'direct',
  portkey: 'Portkey',
  classic: 'Merino classic',
  multi: 'Merino multi-tool',
};

let mockUrl = '';

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
  cpuPerStreamMs: number;
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
    cpuPerStreamMs: of((round) => round[name].streams.cpuPerStreamMs),
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
      `${STREAMS} streams, server CPU per stream, ms`,
      gatewayOnly((summary) => format(summary.cpuPerStreamMs)),
    ),
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
  await setPaced(mockUrl, true);
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
  // Classic and multi-tool each get a Merino of their own, as the gateway does, so that each row's
  // memory and CPU are its own rather than what the other's phases left in a shared process.
  const classicMerino = await startMerino(mock.url, { cpuProfileFolder: CPU_PROFILE_FOLDER });
  const multiMerino = await startMerino(mock.url, { cpuProfileFolder: CPU_PROFILE_FOLDER });
  const targets: Record<TargetName, Target> = {
    direct: {
      name: 'direct',
      url: `${mock.url}/v1/chat/completions`,
      headers: { authorization: `Bearer ${PROVIDER_KEY}` },
      model: MOCK_MODEL,
      pid: undefined,
    },
    portkey: await startPortkey(gatewayScript, mock.url),
    classic: classicMerino.classic,
    multi: multiMerino.multi,
  };
  console.log(
    `Targets interleaved, ${ROUNDS} rounds, medians; ${SERIAL_REQUESTS} requests at concurrency 1, ${CONCURRENT_REQUESTS} at ${CONCURRENCY}; ` +
      `${BURST_STREAMS} and ${STREAMS} streams at once of ${MOCK_DELTAS} deltas ${MOCK_DELTA_INTERVAL_MS} ms apart.`,
  );
  for (const name of TARGETS) {
    await setPaced(mockUrl, false);
    await throughput(targets[name], WARM_UP_REQUESTS, CONCURRENCY);
    await setPaced(mockUrl, true);
    await streamBurst(targets[name], Math.ceil(WARM_UP_REQUESTS / 2));
  }
  const rounds: Record<TargetName, RoundFigures>[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const figures = {} as Record<TargetName, Partial<RoundFigures>>;
    for (const name of TARGETS) figures[name] = {};
    await setPaced(mockUrl, false);
    for (const name of TARGETS) figures[name].serial = await serialLatency(targets[name], SERIAL_REQUESTS);
    for (const name of TARGETS) figures[name].throughput = await throughput(targets[name], CONCURRENT_REQUESTS, CONCURRENCY);
    await setPaced(mockUrl, true);
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
    for (const name of ['portkey', 'classic', 'multi'] as const)
      if (targets[name].pid !== undefined) process.kill(targets[name].pid, 'SIGTERM');
    const fresh = await startMerino(mock.url, { cpuProfileFolder: CPU_PROFILE_FOLDER });
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
