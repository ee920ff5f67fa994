/**
 * Two builds of Merino side by side on the gateway benchmark's workload, for a change's before and
 * after: this checkout's `dist/` and another checkout's (BENCH_BASELINE, built with `npm run build`;
 * `git worktree add ../baseline <commit>` and a link to this `node_modules` make one). One mock
 * provider; each build in its own process with its own data folder. Rounds alternate which build
 * goes first, and medians are printed, because on a shared machine two full runs of the same code
 * differ by more than most changes do (docs/throughput.md).
 *
 * Each round measures, for the chosen assistant (BENCH_ASSISTANT: multi or classic), the added
 * latency at concurrency 1 (p50 over BENCH_SERIAL_REQUESTS) with the server's CPU per request
 * meanwhile, then requests/s and CPU per request at BENCH_CONCURRENCY. Every answer is checked
 * whole, as in the side-by-side benchmark. Prints figures; asserts nothing.
 *
 *   npm run build && BENCH_BASELINE=../baseline tsx bench/gateway-build-comparison.ts
 *   (BENCH_ROUNDS=8 BENCH_SERIAL_REQUESTS=1500 BENCH_CONCURRENCY=32 BENCH_ASSISTANT=multi)
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROVIDER_KEY, REPOSITORY, startMerino, startMock, stopChildren, type Target } from './support/gateway-targets.js';
import { cpuSpentMilliseconds, serialLatency, serverCpuByProcess, throughput } from './support/load-measures.js';
import { ascending, percentile, wholeNumberSetting } from './support/measure.js';
import { MOCK_MODEL } from './support/mock-answer.js';

const ROUNDS = wholeNumberSetting('BENCH_ROUNDS', 8, 1);
const SERIAL_REQUESTS = wholeNumberSetting('BENCH_SERIAL_REQUESTS', 1_500, 1);
const CONCURRENCY = wholeNumberSetting('BENCH_CONCURRENCY', 32, 1);
const WARM_UP_REQUESTS = 3_000;
const ASSISTANT = process.env.BENCH_ASSISTANT === 'classic' ? 'classic' : 'multi';
const BASELINE = process.env.BENCH_BASELINE;

interface RoundFigures {
  addedP50: number;
  serialCpu: number;
  requestsPerSecond: number;
  concurrentCpu: number;
}

async function round(target: Target, direct: Target): Promise<RoundFigures> {
  const baseline = await serialLatency(direct, SERIAL_REQUESTS);
  const before = await serverCpuByProcess(target);
  const serial = await serialLatency(target, SERIAL_REQUESTS);
  const serialCpu = cpuSpentMilliseconds(before, await serverCpuByProcess(target)) / SERIAL_REQUESTS;
  const concurrent = await throughput(target, SERIAL_REQUESTS * 2, CONCURRENCY);
  if (serial.errors + concurrent.errors > 0) throw new Error(`${serial.errors + concurrent.errors} requests failed`);
  return {
    addedP50: serial.p50 - baseline.p50,
    serialCpu,
    requestsPerSecond: concurrent.requestsPerSecond,
    concurrentCpu: concurrent.cpuPerRequestMs,
  };
}

const median = (values: readonly number[]): number => percentile(ascending(values), 0.5);

async function main(): Promise<void> {
  if (BASELINE === undefined) throw new Error('set BENCH_BASELINE to a checkout whose dist/ is built');
  const baselineRepository = path.resolve(BASELINE);
  for (const repository of [REPOSITORY, baselineRepository])
    if (!fs.existsSync(path.join(repository, 'dist', 'main.js')))
      throw new Error(`${repository}/dist/main.js is missing: run npm run build there`);
  const mock = await startMock();
  const direct: Target = {
    name: 'direct',
    url: `${mock.url}/v1/chat/completions`,
    headers: { authorization: `Bearer ${PROVIDER_KEY}` },
    model: MOCK_MODEL,
    pid: undefined,
  };
  const builds = {
    baseline: (await startMerino(mock.url, { repository: baselineRepository }))[ASSISTANT],
    this: (await startMerino(mock.url))[ASSISTANT],
  };
  for (const target of Object.values(builds)) {
    await serialLatency(target, WARM_UP_REQUESTS);
    await throughput(target, WARM_UP_REQUESTS, CONCURRENCY);
  }
  const figures: Record<keyof typeof builds, RoundFigures[]> = { baseline: [], this: [] };
  for (let index = 0; index < ROUNDS; index += 1) {
    const order: (keyof typeof builds)[] = index % 2 === 0 ? ['baseline', 'this'] : ['this', 'baseline'];
    for (const name of order) figures[name].push(await round(builds[name], direct));
    console.log(`round ${index + 1} of ${ROUNDS} done`);
  }
  console.log(`\n${ASSISTANT} assistant, ${ROUNDS} rounds alternating, medians (baseline ${baselineRepository})`);
  console.log(
    `| build | concurrency 1, added p50 ms | CPU per request at 1, ms | requests/s at ${CONCURRENCY} | CPU per request at ${CONCURRENCY}, ms |`,
  );
  console.log('|---|---|---|---|---|');
  for (const [name, rounds] of Object.entries(figures)) {
    const of = (pick: (figures: RoundFigures) => number, digits: number) => median(rounds.map(pick)).toFixed(digits);
    console.log(
      `| ${name} | ${of((entry) => entry.addedP50, 2)} | ${of((entry) => entry.serialCpu, 2)} | ${of((entry) => entry.requestsPerSecond, 0)} | ${of((entry) => entry.concurrentCpu, 3)} |`,
    );
  }
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(stopChildren);
