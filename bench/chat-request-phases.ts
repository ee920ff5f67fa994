/**
 * Where a chat request's time goes inside Merino, one request at a time: the added latency the
 * gateway comparison (bench/gateway-comparison.ts) measures from outside, split by the server's
 * own diagnostics channels (bench/support/request-phase-recorder.mjs, preloaded; nothing in the
 * server changes). For the comparison's classic and multi-tool assistants, on the same mock:
 *
 * - before the model: from the request's start in the server until the request to the provider
 *   is created (authentication, the rate limit, the assistant, its tools, the prompt), and the
 *   SQLite statements' share of it;
 * - the provider: until its answer has arrived (the mock answers at once, so this is mostly the
 *   two HTTP hops, Merino's client and the mock reading the prompt), and of it the sending, until
 *   undici has sent the request's whole body;
 * - after the model: until the response is finished, and the statements' share of it;
 * - the garbage collector's pauses while a request is in flight (their mean: most requests have none).
 *
 *   npm run bench:request-phases      (BENCH_ROUNDS=3 BENCH_SERIAL_REQUESTS=3000 BENCH_WARM_UP_REQUESTS=1500)
 *
 * BENCH_CPU_PROFILE=<folder> runs the Merino with --cpu-prof into it (both assistants, one process).
 *
 * Medians of each figure over every measured request of every round (the client's p50 is the median
 * of the rounds'); a phase's median is not a share of the total's. Figures are printed, never asserted on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPOSITORY, startMerino, startMock, stopChildren, type Target } from './support/gateway-targets.js';
import { serialLatency, setPaced } from './support/load-measures.js';
import { ascending, percentile, printTable, wholeNumberSetting } from './support/measure.js';
import { MOCK_MODEL } from './support/mock-answer.js';

const ROUNDS = wholeNumberSetting('BENCH_ROUNDS', 3);
const SERIAL_REQUESTS = wholeNumberSetting('BENCH_SERIAL_REQUESTS', 3_000);
/** V8 needs on the order of a thousand requests to compile a server's hot paths (as in the comparison). */
const WARM_UP_REQUESTS = wholeNumberSetting('BENCH_WARM_UP_REQUESTS', 1_500);
const RECORDER = path.join(REPOSITORY, 'bench', 'support', 'request-phase-recorder.mjs');

/** What the recorder writes per request, in ms from the request's start in the server. */
interface PhaseRecord {
  upstream?: number;
  sent?: number;
  headers?: number;
  answered?: number;
  finished?: number;
  sqlBefore: number;
  sqlAfter: number;
  garbageCollection: number;
}

interface TargetFigures {
  clientP50: number[];
  records: PhaseRecord[];
}

/** Asks the server's recorder for its records so far, which it then forgets. */
async function takeRecords(pid: number, file: string): Promise<PhaseRecord[]> {
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (fs.existsSync(file)) {
      try {
        return JSON.parse(fs.readFileSync(file, 'utf8')) as PhaseRecord[];
      } catch {
        // Still being written.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not write its request phases');
}

function median(values: readonly number[]): number {
  return percentile(ascending(values), 0.5);
}

function phaseMedian(records: readonly PhaseRecord[], pick: (record: PhaseRecord) => number | undefined): string {
  const values = records.map(pick).filter((value): value is number => value !== undefined && Number.isFinite(value));
  return values.length === 0 ? '–' : median(values).toFixed(3);
}

async function main(): Promise<void> {
  const phasesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'merino-phases-')), 'phases.json');
  const mock = await startMock();
  await setPaced(mock.url, false);
  const merino = await startMerino(mock.url, {
    nodeArguments: ['--import', RECORDER],
    environment: { MERINO_PHASES_FILE: phasesFile },
    cpuProfileFolder: process.env.BENCH_CPU_PROFILE,
  });
  const direct: Target = { name: 'direct', url: `${mock.url}/v1/chat/completions`, headers: {}, model: MOCK_MODEL, pid: undefined };
  const targets: Array<['classic' | 'multi', Target]> = [
    ['classic', merino.classic],
    ['multi', merino.multi],
  ];
  const figures = new Map<string, TargetFigures>(targets.map(([name]) => [name, { clientP50: [], records: [] }]));
  const directP50: number[] = [];
  for (const [, target] of targets) await serialLatency(target, WARM_UP_REQUESTS);
  for (let round = 1; round <= ROUNDS; round += 1) {
    directP50.push((await serialLatency(direct, SERIAL_REQUESTS)).p50);
    for (const [name, target] of targets) {
      await takeRecords(merino.pid, phasesFile);
      const latency = await serialLatency(target, SERIAL_REQUESTS);
      if (latency.errors > 0) throw new Error(`${name}: ${latency.errors} requests failed, the first with ${latency.firstError}`);
      const entry = figures.get(name)!;
      entry.clientP50.push(latency.p50);
      entry.records.push(...(await takeRecords(merino.pid, phasesFile)));
    }
    console.log(`round ${round} of ${ROUNDS} done`);
  }
  const directMedian = median(directP50);
  printTable(
    `Chat request phases at concurrency 1, ms (medians; ${ROUNDS} rounds of ${SERIAL_REQUESTS} requests; the mock alone answers in ${directMedian.toFixed(3)})`,
    [
      'assistant',
      'client p50',
      'added p50',
      'in server',
      'before model',
      'its SQL',
      'provider',
      'sending',
      'after model',
      'its SQL',
      'GC, mean',
    ].map((label, index) => ({ label, width: index === 0 ? 9 : Math.max(label.length, 7) })),
    targets.map(([name]) => {
      const { clientP50, records } = figures.get(name)!;
      return [
        name,
        median(clientP50).toFixed(3),
        (median(clientP50) - directMedian).toFixed(3),
        phaseMedian(records, (record) => record.finished),
        phaseMedian(records, (record) => record.upstream),
        phaseMedian(records, (record) => record.sqlBefore),
        phaseMedian(records, (record) => (record.answered ?? Number.NaN) - (record.upstream ?? Number.NaN)),
        phaseMedian(records, (record) => (record.sent ?? Number.NaN) - (record.upstream ?? Number.NaN)),
        phaseMedian(records, (record) => (record.finished ?? Number.NaN) - (record.answered ?? Number.NaN)),
        phaseMedian(records, (record) => record.sqlAfter),
        (records.reduce((sum, record) => sum + record.garbageCollection, 0) / Math.max(1, records.length)).toFixed(3),
      ];
    }),
  );
}

try {
  await main();
} finally {
  stopChildren();
}
