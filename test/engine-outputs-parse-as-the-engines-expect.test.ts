/**
 * The inference engines' own test strings as the bar for the text tool-call parser. Every model
 * output the vLLM, SGLang, Ollama and llama.cpp test suites check their parsers with
 * (test/text-tool-call-corpus/<engine>.json, each with its provenance) is parsed in auto mode and in
 * its family's named mode, whole and in 8 seeded random chunkings: the calls, the visible text and
 * the reasoning must be the ones the engine expects (or, for the samples listed in disputed.json,
 * the ones Merino is held to instead, for the reason given there), and every chunking must give
 * exactly what the whole text gave. Named mode must read every sample; auto mode at least 99 %.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  TEXT_TOOL_CALL_FORMATS,
  TextToolCallParser,
  type ReasoningOpenedSetting,
  type TextParserEvent,
} from '../src/text-tool-calls/index.js';

const CORPUS_FOLDER = join(import.meta.dirname, 'text-tool-call-corpus');
const CHUNKINGS = 8;
/** The share of samples auto mode must read as the engines do (the bar). */
const AUTO_MODE_PASS_RATE = 0.99;

/**
 * Families whose format another branch of issue 18 is adding. Their samples are parsed and reported
 * but kept out of the pass-rate bar until their format lands; the lead empties this list on merge.
 */
const PENDING_FAMILIES: readonly string[] = [];

interface ExpectedCall {
  name: string;
  arguments?: Record<string, unknown>;
  /** For broken JSON the call carries the model's own text. */
  raw_arguments?: string;
}

interface Expectation {
  calls: ExpectedCall[];
  /** The visible text; null when the engine does not assert it. */
  content: string | null;
  reasoning?: string;
}

interface CorpusSample {
  id: string;
  engine: string;
  file: string;
  test: string;
  family: string;
  format: string;
  tools?: Array<{ name: string; parameters?: Record<string, unknown> }>;
  reasoning_opened?: ReasoningOpenedSetting;
  output: string;
  expected: Expectation;
  note?: string;
}

interface Dispute {
  id: string;
  reason: string;
  expected: Expectation;
}

interface Parsed {
  text: string;
  reasoning: string;
  calls: Array<{ name: string; argumentsJson: string }>;
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(join(CORPUS_FOLDER, file), 'utf8'));
}

const samples: CorpusSample[] = readdirSync(CORPUS_FOLDER)
  .filter((file) => file.endsWith('.json') && file !== 'disputed.json' && file !== 'prose.json')
  .sort()
  .flatMap((file) => readJson(file) as CorpusSample[]);
const disputes = new Map((readJson('disputed.json') as Dispute[]).map((dispute) => [dispute.id, dispute]));
const knownFormats: readonly string[] = TEXT_TOOL_CALL_FORMATS;

function isPending(sample: CorpusSample): boolean {
  return PENDING_FAMILIES.includes(sample.format) && !knownFormats.includes(sample.format);
}

/** A small seeded generator (mulberry32), so every run cuts the texts at the same places. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function randomChunking(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  let start = 0;
  // Mostly short deltas, as servers stream them, with the odd long one.
  while (start < text.length) {
    const size = random() < 0.9 ? 1 + Math.floor(random() * 12) : 1 + Math.floor(random() * 200);
    chunks.push(text.slice(start, start + size));
    start += size;
  }
  return chunks;
}

function parseChunks(sample: CorpusSample, format: string, chunks: readonly string[]): Parsed {
  const tools = (sample.tools ?? []).map((tool) => ({
    name: tool.name,
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }));
  const parser = new TextToolCallParser({
    tools,
    format: format as (typeof TEXT_TOOL_CALL_FORMATS)[number] | 'auto',
    reasoningOpened: sample.reasoning_opened ?? 'auto',
  });
  const events: TextParserEvent[] = [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
  const joined = (type: 'text' | 'reasoning') => events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
  return {
    text: joined('text'),
    reasoning: joined('reasoning'),
    calls: events.flatMap((event) => (event.type === 'tool-call' ? [{ name: event.name, argumentsJson: event.argumentsJson }] : [])),
  };
}

/** Engines differ in the blank space they keep around calls, and none asserts it. */
function normalised(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

function argumentsOf(argumentsJson: string): unknown {
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return { unparsable: argumentsJson };
  }
}

/** What differs from the expectation, as short readable lines; empty when the parse is right. */
function differences(parsed: Parsed, expected: Expectation): string[] {
  const found: string[] = [];
  const names = parsed.calls.map((call) => call.name);
  const expectedNames = expected.calls.map((call) => call.name);
  if (JSON.stringify(names) !== JSON.stringify(expectedNames))
    found.push(`calls ${JSON.stringify(names)}, expected ${JSON.stringify(expectedNames)}`);
  else
    expected.calls.forEach((call, index) => {
      const actual = parsed.calls[index]!.argumentsJson;
      const matches =
        call.raw_arguments !== undefined
          ? actual === call.raw_arguments
          : JSON.stringify(argumentsOf(actual)) === JSON.stringify(call.arguments ?? {});
      if (!matches) found.push(`arguments of ${call.name}: ${actual}`);
    });
  // Arguments are compared by their JSON; key order follows the model, so compare canonically too.
  if (expected.content !== null && normalised(parsed.text) !== normalised(expected.content))
    found.push(`content ${JSON.stringify(parsed.text)}, expected ${JSON.stringify(expected.content)}`);
  if (expected.reasoning !== undefined && normalised(parsed.reasoning) !== normalised(expected.reasoning))
    found.push(`reasoning ${JSON.stringify(parsed.reasoning)}, expected ${JSON.stringify(expected.reasoning)}`);
  if (expected.reasoning === undefined && parsed.reasoning !== '' && expected.content !== null)
    found.push(`unexpected reasoning ${JSON.stringify(parsed.reasoning)}`);
  return found;
}

function expectationOf(sample: CorpusSample): Expectation {
  return disputes.get(sample.id)?.expected ?? sample.expected;
}

/** The failures of one sample in one setting: against the expectation, and any chunking that differs from the whole. */
function check(sample: CorpusSample, format: string, seed: number): string[] {
  const whole = parseChunks(sample, format, [sample.output]);
  const problems = differences(whole, expectationOf(sample));
  const random = seededRandom(seed);
  for (let round = 0; round < CHUNKINGS; round += 1) {
    const chunked = parseChunks(sample, format, randomChunking(sample.output, random));
    if (JSON.stringify(chunked) !== JSON.stringify(whole)) {
      problems.push(`chunking ${round} differs from the whole text`);
      break;
    }
  }
  return problems;
}

describe('the engine-derived corpus', () => {
  it('has unique ids, known engines and formats, and a dispute only for samples that exist', () => {
    const ids = samples.map((sample) => sample.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(samples.length).toBeGreaterThan(300);
    for (const sample of samples) {
      expect(['vllm', 'sglang', 'ollama', 'llama-cpp']).toContain(sample.engine);
      expect([...knownFormats, ...PENDING_FAMILIES]).toContain(sample.format);
    }
    for (const id of disputes.keys()) expect(ids).toContain(id);
  });

  it('keeps the pending list honest: a family whose format exists is not pending', () => {
    expect(PENDING_FAMILIES.filter((family) => knownFormats.includes(family))).toEqual([]);
  });
});

const runnable = samples.filter((sample) => !isPending(sample));

describe.each(['vllm', 'sglang', 'ollama', 'llama-cpp'])('%s samples in their named format', (engine) => {
  const ofEngine = runnable.filter((sample) => sample.engine === engine);
  it.each(ofEngine.map((sample, index) => ({ sample, index, id: sample.id })))('$id', ({ sample, index }) => {
    expect(check(sample, sample.format, index + 1)).toEqual([]);
  });
});

describe('auto mode over the whole corpus', () => {
  it(`reads at least ${AUTO_MODE_PASS_RATE * 100} % of the samples as the engines do, whole and chunked`, () => {
    const failures = runnable.flatMap((sample, index) => {
      const problems = check(sample, 'auto', 1000 + index);
      return problems.length === 0 ? [] : [`${sample.id}: ${problems.join('; ')}`];
    });
    const passRate = (runnable.length - failures.length) / runnable.length;
    expect({
      passRate: passRate >= AUTO_MODE_PASS_RATE ? 'met' : passRate,
      failures: passRate >= AUTO_MODE_PASS_RATE ? [] : failures,
    }).toEqual({
      passRate: 'met',
      failures: [],
    });
  });
});
