/**
 * `reasoning_opened: auto` holds an answer's first characters back only for models whose templates
 * may open reasoning (issue 29 item 1: every other model's answer streams from its first word). The
 * engine corpus is the bar: every sample whose reading depends on that decision (it parses differently
 * with the decision made from the output than with the output read as the answer) belongs to a family
 * whose name resolves to `auto` or `always`, so no reading the corpus holds Merino to is lost.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  resolveReasoningOpened,
  TextToolCallParser,
  type ReasoningOpenedSetting,
  type TextParserEvent,
} from '../src/text-tool-calls/index.js';

const CORPUS_FOLDER = join(import.meta.dirname, 'text-tool-call-corpus');

interface CorpusSample {
  id: string;
  family: string;
  tools?: Array<{ name: string; parameters?: Record<string, unknown> }>;
  reasoning_opened?: ReasoningOpenedSetting;
  output: string;
}

const samples: CorpusSample[] = readdirSync(CORPUS_FOLDER)
  .filter((file) => file.endsWith('.json') && file !== 'disputed.json' && file !== 'prose.json')
  .flatMap((file) => JSON.parse(readFileSync(join(CORPUS_FOLDER, file), 'utf8')) as CorpusSample[]);

/** The text, reasoning and calls the parser reads from the whole output. */
function reading(sample: CorpusSample, reasoningOpened: ReasoningOpenedSetting): string {
  const tools = (sample.tools ?? []).map((tool) => ({ name: tool.name, parameters: tool.parameters ?? { type: 'object' } }));
  const parser = new TextToolCallParser({ tools, format: 'auto', reasoningOpened });
  const events: TextParserEvent[] = [...parser.push(sample.output), ...parser.end()];
  const joined = (type: 'text' | 'reasoning') => events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
  const calls = events.flatMap((event) => (event.type === 'tool-call' ? [`${event.name}${event.argumentsJson}`] : []));
  return JSON.stringify({ text: joined('text'), reasoning: joined('reasoning'), calls });
}

describe('the families auto decides from the output', () => {
  const decidedFromTheOutput = samples.filter(
    (sample) => sample.reasoning_opened === undefined && reading(sample, 'auto') !== reading(sample, 'never'),
  );

  it('are found in the corpus', () => {
    expect(decidedFromTheOutput.length).toBeGreaterThan(0);
  });

  it('include every family whose corpus samples need the decision', () => {
    const unresolved = decidedFromTheOutput
      .filter((sample) => resolveReasoningOpened('auto', sample.family) === 'never')
      .map((sample) => `${sample.id} (${sample.family})`);
    expect(unresolved).toEqual([]);
  });
});
