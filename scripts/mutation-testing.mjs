/**
 * `npm run mutation [-- group ... --stryker-option ...]`: runs Stryker once per group of
 * scripts/mutation-groups.mjs (all of them when none is named), one after the other so two runners
 * at most share the machine, then prints each mutated file's score from the JSON reports. Options
 * (anything starting with `-`, e.g. `--force` to ignore the incremental results) go to Stryker. Per group, because a group's mutants
 * then re-run only that group's tests; one run over everything would re-run every suite for
 * every mutant that lives in code a suite runs while it starts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { MUTATION_GROUPS } from './mutation-groups.mjs';

/** Stryker's own statuses that count for and against the score; the rest (ignored, errors) count for nothing. */
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

const requested = process.argv.slice(2).filter((argument) => !argument.startsWith('-'));
const strykerOptions = process.argv.slice(2).filter((argument) => argument.startsWith('-'));
const unknown = requested.filter((name) => MUTATION_GROUPS[name] === undefined);
if (unknown.length > 0) {
  console.error(`Unknown mutation group(s): ${unknown.join(', ')}. Groups: ${Object.keys(MUTATION_GROUPS).join(', ')}.`);
  process.exit(2);
}
const groups = requested.length > 0 ? requested : Object.keys(MUTATION_GROUPS);

function percentage(part, whole) {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(2)} %`;
}

/** One line per mutated file: score over all mutants and over covered ones, with the counts behind them. */
function scoreLines(reportPath) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  return Object.entries(report.files).map(([file, { mutants }]) => {
    const count = (status) => mutants.filter((mutant) => mutant.status === status).length;
    const detected = mutants.filter((mutant) => DETECTED.has(mutant.status)).length;
    const undetected = mutants.filter((mutant) => UNDETECTED.has(mutant.status)).length;
    const covered = detected + count('Survived');
    return `${file}: score ${percentage(detected, detected + undetected)} (covered ${percentage(detected, covered)}); killed ${count('Killed')}, timeout ${count('Timeout')}, survived ${count('Survived')}, no coverage ${count('NoCoverage')}, ignored ${count('Ignored')}, errors ${count('CompileError') + count('RuntimeError')}`;
  });
}

let failed = false;
for (const group of groups) {
  console.log(`\n=== mutation group ${group} ===`);
  const run = spawnSync('npx', ['stryker', 'run', ...strykerOptions], {
    stdio: 'inherit',
    env: { ...process.env, MERINO_MUTATION_GROUP: group },
  });
  if (run.status !== 0) {
    console.error(`Stryker ended with status ${run.status ?? run.signal} for group ${group}.`);
    failed = true;
  }
}

console.log('\n=== mutation scores per file ===');
for (const group of groups) {
  const reportPath = `reports/mutation/${group}/mutation.json`;
  if (!existsSync(reportPath)) {
    console.log(`${group}: no report`);
    continue;
  }
  for (const line of scoreLines(reportPath)) console.log(line);
}
process.exit(failed ? 1 : 0);
