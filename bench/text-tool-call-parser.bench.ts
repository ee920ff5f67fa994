/**
 * Benchmark of the streaming text tool-call parser (src/text-tool-calls): throughput in
 * MB/s of UTF-8 text (as it arrives from the model server), streamed in DELTA_CHARACTERS-character
 * deltas.
 *
 *  1. Plain text: PROSE_MEGABYTES of this repository's own docs (markdown prose with code, JSON,
 *     brackets and tags), auto mode, three offered tools. Nothing in it is a call.
 *     Also the prose corpus about tool-call syntax (test/text-tool-call-corpus/prose.json), which
 *     stops the scan at a trigger every few characters, and both with reasoning_opened at auto
 *     (the assistants' default) and in one whole push. The target is at least 100 MB/s.
 *  2. Text with calls: for each format, prose with that format's sample calls between paragraphs,
 *     in auto mode and in the format's own setting.
 *  3. Adversarial input at two sizes (ADVERSARIAL_MEGABYTES and four times that): unclosed
 *     openings, deep nesting, a run of `<`… Linear work shows as a time ratio near 4 and the same
 *     characters examined per input character at both sizes.
 *
 * Also printed: the characters the parser examined per input character (its work counter).
 *
 *   npm run bench -- bench/text-tool-call-parser.bench.ts
 *   (PROSE_MEGABYTES=4 CALLS_MEGABYTES=1 ADVERSARIAL_MEGABYTES=1 DELTA_CHARACTERS=20 RUNS=3 change the load)
 *
 * Figures are printed, never asserted on; the only checks are that plain text yields no call and
 * that every sample call is found.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FORMAT_SAMPLES, SAMPLE_TOOLS } from '../src/text-tool-calls/format-samples.js';
import {
  TextToolCallParser,
  type ReasoningOpenedSetting,
  type TextParserEvent,
  type ToolCallFormatSetting,
} from '../src/text-tool-calls/index.js';
import { printTable } from './support/measure.js';

function setting(variable: string, defaultValue: number): number {
  const raw = process.env[variable];
  if (raw === undefined || raw.trim() === '') return defaultValue;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${variable} must be a positive number, got "${raw}"`);
  return value;
}

const PROSE_MEGABYTES = setting('PROSE_MEGABYTES', 4);
const CALLS_MEGABYTES = setting('CALLS_MEGABYTES', 1);
const ADVERSARIAL_MEGABYTES = setting('ADVERSARIAL_MEGABYTES', 1);
const DELTA_CHARACTERS = setting('DELTA_CHARACTERS', 20);
/** Each figure is the best of this many runs, after one run that warms the JIT up. */
const RUNS = setting('RUNS', 3);
const MEGABYTE = 1024 * 1024;

/** Docs that describe tool calls themselves would put calls into the "plain" text. */
const DOCS_WITH_CALLS = new Set(['function-tools.md', 'text-tool-calls.md']);

function prose(): string {
  const directory = new URL('../docs/', import.meta.url);
  const pages = readdirSync(directory)
    .filter((name) => name.endsWith('.md') && !DOCS_WITH_CALLS.has(name))
    .map((name) => readFileSync(new URL(name, directory), 'utf8'));
  return pages.join('\n\n');
}

function repeatTo(text: string, characters: number): string {
  return text.repeat(Math.ceil(characters / text.length)).slice(0, characters);
}

/** Paragraphs of prose with the format's samples between them, about `characters` long; answers the text and its call count. */
function withCalls(
  paragraphs: readonly string[],
  samples: readonly { text: string; calls: readonly unknown[] }[],
  characters: number,
): { text: string; calls: number } {
  const parts: string[] = [];
  let length = 0;
  let calls = 0;
  for (let index = 0; length < characters; index += 1) {
    const paragraph = paragraphs[index % paragraphs.length]!;
    const sample = samples[index % samples.length]!;
    parts.push(paragraph, '\n\n', sample.text, '\n\n');
    length += paragraph.length + sample.text.length + 4;
    calls += sample.calls.length;
  }
  return { text: parts.join(''), calls };
}

interface Run {
  seconds: number;
  /** CPU time this process spent (user and system): on a shared machine, less disturbed by other load than the wall clock. */
  cpuSeconds: number;
  calls: number;
  examinedPerCharacter: number;
}

interface Load {
  format: Exclude<ToolCallFormatSetting, 'native'>;
  reasoningOpened?: ReasoningOpenedSetting;
  /** Characters per push; the whole text in one push when absent. */
  delta?: number;
}

function parseStreamed(text: string, load: Load): Run {
  const parser = new TextToolCallParser({ tools: SAMPLE_TOOLS, format: load.format, reasoningOpened: load.reasoningOpened ?? 'never' });
  const delta = load.delta ?? text.length;
  let calls = 0;
  const count = (events: TextParserEvent[]) => {
    for (const event of events) if (event.type === 'tool-call') calls += 1;
  };
  const cpuBefore = process.cpuUsage();
  const begin = performance.now();
  for (let index = 0; index < text.length; index += delta) count(parser.push(text.slice(index, index + delta)));
  count(parser.end());
  const seconds = (performance.now() - begin) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    calls,
    examinedPerCharacter: parser.statistics.charactersExamined / text.length,
  };
}

function best(
  text: string,
  format: Exclude<ToolCallFormatSetting, 'native'>,
  load: Omit<Load, 'format'> = { delta: DELTA_CHARACTERS },
): Run {
  parseStreamed(text, { format, ...load });
  const runs = Array.from({ length: RUNS }, () => parseStreamed(text, { format, ...load }));
  return runs.reduce((fastest, run) => (run.seconds < fastest.seconds ? run : fastest));
}

/** The texts about tool-call syntax the prose test checks, joined: a trigger every few characters. */
function proseAboutSyntax(): string {
  const texts = JSON.parse(readFileSync(new URL('../test/text-tool-call-corpus/prose.json', import.meta.url), 'utf8')) as Array<{
    text: string;
  }>;
  return texts.map((entry) => entry.text).join('\n\n');
}

/** Inputs built to make a careless parser quadratic, each a repeated unit. */
const ADVERSARIAL_UNITS: ReadonlyArray<[string, string]> = [
  ['a run of <', '<'],
  ['unclosed <tool_call>{"name": "get_weather", ', '<tool_call>{"name": "get_weather", "arguments": {"city": "'],
  ['unclosed [get_weather(', '[get_weather(city="'],
  ['unclosed {"name": "get_weather", ', '{"name": "get_weather", "arguments": {'],
  ['deep [ nesting', '['],
  ['deep { nesting', '{"a":'],
  ['unclosed <think> lookalikes', '<thin'],
  ['stray </tool_call> and }', '</tool_call>}]'],
  ['Harmony headers', '<|start|>assistant<|channel|>commentary to=functions.get_weather'],
];

function megabytes(text: string): number {
  return Buffer.byteLength(text, 'utf8') / MEGABYTE;
}

function megabytesPerSecond(text: string, run: Run): string {
  return (megabytes(text) / run.seconds).toFixed(1);
}

function megabytesPerCpuSecond(text: string, run: Run): string {
  return (megabytes(text) / run.cpuSeconds).toFixed(1);
}

describe('text tool-call parser throughput', () => {
  it(
    `parses ${PROSE_MEGABYTES} MB of prose and every format's calls, in ${DELTA_CHARACTERS}-character deltas`,
    { timeout: 600_000 },
    () => {
      const corpus = prose();
      // The docs are nearly all ASCII, so characters and UTF-8 bytes are close enough to size the input.
      const plain = repeatTo(corpus, Math.round(PROSE_MEGABYTES * MEGABYTE));
      const syntaxProse = repeatTo(proseAboutSyntax(), Math.round(PROSE_MEGABYTES * MEGABYTE));
      const plainRows: string[][] = [];
      for (const [label, text] of [
        ['docs', plain],
        ['prose about tool-call syntax', syntaxProse],
      ] as const) {
        for (const [loadLabel, load] of [
          [`${DELTA_CHARACTERS}-char deltas`, { delta: DELTA_CHARACTERS }],
          [`${DELTA_CHARACTERS}-char deltas, reasoning auto`, { delta: DELTA_CHARACTERS, reasoningOpened: 'auto' }],
          ['one push', {}],
        ] as const) {
          const run = best(text, 'auto', load);
          expect(run.calls).toBe(0);
          plainRows.push([
            label,
            loadLabel,
            megabytesPerSecond(text, run),
            megabytesPerCpuSecond(text, run),
            run.examinedPerCharacter.toFixed(2),
          ]);
        }
      }
      printTable(
        `Plain text: ${megabytes(plain).toFixed(2)} MB each, auto mode, ${SAMPLE_TOOLS.length} offered tools (target: at least 100 MB/s)`,
        [
          { label: 'input', width: 30 },
          { label: 'pushed as', width: 34 },
          { label: 'MB/s', width: 8 },
          { label: 'MB/cpu-s', width: 9 },
          { label: 'examined/char', width: 14 },
        ],
        plainRows,
      );

      const paragraphs = corpus.split(/\n\s*\n/).filter((paragraph) => paragraph.trim().length > 40);
      const rows: string[][] = [];
      for (const group of FORMAT_SAMPLES) {
        const mixed = withCalls(paragraphs, group.samples, Math.round(CALLS_MEGABYTES * MEGABYTE));
        const auto = best(mixed.text, 'auto');
        const own = best(mixed.text, group.format);
        // A format read everywhere only in its own setting reads in auto at most the calls that start a segment.
        if (group.namedOnly === true) expect(auto.calls).toBeLessThanOrEqual(mixed.calls);
        else expect(auto.calls).toBe(mixed.calls);
        expect(own.calls).toBe(mixed.calls);
        rows.push([
          group.format,
          String(mixed.calls),
          megabytesPerSecond(mixed.text, auto),
          megabytesPerSecond(mixed.text, own),
          auto.examinedPerCharacter.toFixed(2),
        ]);
      }
      printTable(
        `Text with calls: ~${CALLS_MEGABYTES} MB per format (prose paragraphs with the format's samples between them), ${DELTA_CHARACTERS}-character deltas`,
        [
          { label: 'format', width: 18 },
          { label: 'calls', width: 7 },
          { label: 'auto MB/s', width: 10 },
          { label: 'own MB/s', width: 10 },
          { label: 'examined/char', width: 14 },
        ],
        rows,
      );
    },
  );

  it(
    `parses adversarial input in linear time: ${ADVERSARIAL_MEGABYTES} MB and ${ADVERSARIAL_MEGABYTES * 4} MB`,
    { timeout: 600_000 },
    () => {
      const rows: string[][] = [];
      for (const [label, unit] of ADVERSARIAL_UNITS) {
        const small = repeatTo(unit, Math.round(ADVERSARIAL_MEGABYTES * MEGABYTE));
        const large = repeatTo(unit, Math.round(ADVERSARIAL_MEGABYTES * 4 * MEGABYTE));
        const smallRun = best(small, 'auto');
        const largeRun = best(large, 'auto');
        rows.push([
          label,
          (smallRun.seconds * 1000).toFixed(0),
          (largeRun.seconds * 1000).toFixed(0),
          (largeRun.seconds / smallRun.seconds).toFixed(2),
          megabytesPerSecond(large, largeRun),
          `${smallRun.examinedPerCharacter.toFixed(2)} / ${largeRun.examinedPerCharacter.toFixed(2)}`,
        ]);
      }
      printTable(
        `Adversarial input, auto mode, ${DELTA_CHARACTERS}-character deltas: time at ${ADVERSARIAL_MEGABYTES} MB and ${ADVERSARIAL_MEGABYTES * 4} MB (linear: ratio near 4)`,
        [
          { label: 'input', width: 46 },
          { label: 'small ms', width: 9 },
          { label: 'large ms', width: 9 },
          { label: 'ratio', width: 6 },
          { label: 'MB/s', width: 7 },
          { label: 'examined/char', width: 14 },
        ],
        rows,
      );
    },
  );
});
