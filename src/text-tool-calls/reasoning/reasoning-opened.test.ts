// Proves the reasoning_opened setting of the text tool-call parser: `always` reads everything up to
// the family's end marker as reasoning (a call written there never runs), `never` reads the output as
// the answer, and `auto` decides from the first OPENING_CHARACTERS_MAXIMUM characters without holding
// back more than that, alike in every chunking; model families whose templates open reasoning resolve
// to `always`.
import { describe, expect, it } from 'vitest';
import { resolveReasoningOpened, TextToolCallParser, type ReasoningOpenedSetting, type TextParserEvent } from '../index.js';
import { OPENING_CHARACTERS_MAXIMUM } from '../vocabulary/parser-limits.js';
import type { OfferedTool } from '../vocabulary/text-tool-call-types.js';

const TOOLS: readonly OfferedTool[] = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
const CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';

interface Parsed {
  text: string;
  reasoning: string;
  calls: string[];
  mostHeld: number;
}

function parse(chunks: readonly string[], reasoningOpened: ReasoningOpenedSetting): Parsed {
  const parser = new TextToolCallParser({ tools: TOOLS, format: 'auto', reasoningOpened });
  const events: TextParserEvent[] = [];
  let mostHeld = 0;
  for (const chunk of chunks) {
    events.push(...parser.push(chunk));
    mostHeld = Math.max(mostHeld, parser.statistics.heldCharacters);
  }
  events.push(...parser.end());
  const joined = (type: 'text' | 'reasoning') => events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
  return {
    text: joined('text'),
    reasoning: joined('reasoning'),
    calls: events.flatMap((event) => (event.type === 'tool-call' ? [event.name] : [])),
    mostHeld,
  };
}

/** Whole, one character at a time, and in sevens: the answer must not depend on the chunking. */
function parseEveryWay(text: string, reasoningOpened: ReasoningOpenedSetting): Omit<Parsed, 'mostHeld'> {
  const { mostHeld: _whole, ...whole } = parse([text], reasoningOpened);
  for (const size of [1, 7]) {
    const chunks: string[] = [];
    for (let start = 0; start < text.length; start += size) chunks.push(text.slice(start, start + size));
    const { mostHeld: _chunked, ...chunked } = parse(chunks, reasoningOpened);
    expect(chunked).toEqual(whole);
  }
  return whole;
}

describe('reasoning_opened: always', () => {
  it('reads everything up to </think> as reasoning, and a call written there is not run', () => {
    expect(parseEveryWay(`Maybe ${CALL} would help.</think>It is sunny.`, 'always')).toEqual({
      text: 'It is sunny.',
      reasoning: `Maybe ${CALL} would help.`,
      calls: [],
    });
  });

  it('runs a call written after </think>', () => {
    expect(parseEveryWay(`Need the weather.</think>${CALL}`, 'always')).toEqual({
      text: '',
      reasoning: 'Need the weather.',
      calls: ['get_weather'],
    });
  });

  it("ends at the family's own marker: [/THINK], Apriel's [BEGIN FINAL RESPONSE], </seed:think>, <|END_THINKING|>", () => {
    for (const marker of ['[/THINK]', '[BEGIN FINAL RESPONSE]', '</seed:think>', '<|END_THINKING|>']) {
      expect(parseEveryWay(`Step one.${marker}Answer.`, 'always')).toEqual({ text: 'Answer.', reasoning: 'Step one.', calls: [] });
    }
  });

  it('drops an opening the model writes again, and keeps reasoning that never closes as reasoning', () => {
    expect(parseEveryWay('\n<think>Again.</think>Answer.', 'always')).toEqual({ text: 'Answer.', reasoning: 'Again.', calls: [] });
    expect(parseEveryWay('Cut off mid-thought', 'always')).toEqual({ text: '', reasoning: 'Cut off mid-thought', calls: [] });
  });
});

describe('reasoning_opened: never', () => {
  it('reads the output as the answer, a lone </think> included', () => {
    expect(parseEveryWay('Step one.</think>Answer.', 'never')).toEqual({ text: 'Step one.</think>Answer.', reasoning: '', calls: [] });
  });
});

describe('reasoning_opened: auto', () => {
  it('takes a lone end marker near the start as the end of template-opened reasoning', () => {
    expect(parseEveryWay(`Short thought ${CALL}.</think>Answer.`, 'auto')).toEqual({
      text: 'Answer.',
      reasoning: `Short thought ${CALL}.`,
      calls: [],
    });
  });

  it('reads the output as the answer when the marker is quoted, follows an opening, or comes too late', () => {
    const quoted = 'Close reasoning with `</think>` in your template.';
    expect(parseEveryWay(quoted, 'auto')).toEqual({ text: quoted, reasoning: '', calls: [] });
    const mentioned = 'If you see </think> in the answer, the server did not split the reasoning.';
    expect(parseEveryWay(mentioned, 'auto')).toEqual({ text: mentioned, reasoning: '', calls: [] });
    expect(parseEveryWay('<think>Own opening.</think>Answer.', 'auto')).toEqual({ text: 'Answer.', reasoning: 'Own opening.', calls: [] });
    const late = `${'word '.repeat(OPENING_CHARACTERS_MAXIMUM / 5 + 1)}</think>after`;
    expect(parseEveryWay(late, 'auto')).toEqual({ text: late, reasoning: '', calls: [] });
  });

  it("decides at the model's own opening, so its reasoning streams at once", () => {
    const reasoning = 'Step one. '.repeat(10);
    const chunks = ['<think>', ...reasoning.match(/.{1,10}/gu)!];
    const parsed = parse(chunks, 'auto');
    expect(parsed.mostHeld).toBeLessThan('<think>'.length + 10);
    expect(parseEveryWay(`<think>${reasoning}</think>Answer.`, 'auto')).toEqual({ text: 'Answer.', reasoning, calls: [] });
  });

  it('holds back no more than OPENING_CHARACTERS_MAXIMUM while it decides', () => {
    const text = 'x'.repeat(OPENING_CHARACTERS_MAXIMUM * 4);
    const parsed = parse(text.split(''), 'auto'); // ASCII only, so code units are characters
    expect(parsed.mostHeld).toBeLessThanOrEqual(OPENING_CHARACTERS_MAXIMUM);
    expect(parsed.text).toBe(text);
  });

  it('resolves to always for families whose templates always open reasoning, auto for those that may, never otherwise', () => {
    expect(resolveReasoningOpened('auto', 'Qwen/QwQ-32B')).toBe('always');
    expect(resolveReasoningOpened('auto', 'deepseek-r1-distill-qwen-7b')).toBe('always');
    expect(resolveReasoningOpened('auto', 'ServiceNow-AI/Apriel-1.6-15b-Thinker')).toBe('always');
    expect(resolveReasoningOpened('auto', 'qwen3.5-9b')).toBe('auto');
    expect(resolveReasoningOpened('auto', 'deepseek-ai/DeepSeek-V3.1')).toBe('auto');
    expect(resolveReasoningOpened('auto', 'nvidia/Nemotron-3-Nano-30B-A3B')).toBe('auto');
    expect(resolveReasoningOpened('auto', 'moonshotai/Kimi-K2-Thinking')).toBe('auto');
    // Models whose templates never open reasoning stream their answer from the first character.
    expect(resolveReasoningOpened('auto', 'gpt-4o-mini')).toBe('never');
    expect(resolveReasoningOpened('auto', 'llama3.1:8b')).toBe('never');
    expect(resolveReasoningOpened('auto', undefined)).toBe('never');
    expect(resolveReasoningOpened('never', 'QwQ-32B')).toBe('never');
    expect(resolveReasoningOpened('always', 'gpt-4o-mini')).toBe('always');
  });
});
