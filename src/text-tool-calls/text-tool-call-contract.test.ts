// The contract every text tool-call format keeps, run as one table over the samples of every format
// (format-samples.ts): the calls are read and the text around them kept; any chunking of the stream
// gives the same text, reasoning and calls (property-tested with fast-check); prose that mentions a
// format's tags stays prose; names of tools that were not offered stay text exactly as written; and
// 1 MB of adversarial openings costs linear work (counted, never timed) with bounded hold-back.
// A format read everywhere only in its own setting (its opening is ordinary text elsewhere) keeps
// every property there; what `auto` reads of it is proved in text-tool-call-family-quirks.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORMAT_SAMPLES, SAMPLE_TOOLS, UNRELATED_TOOLS, type FormatSample } from './format-samples.js';
import { TEXT_TOOL_CALL_FORMATS, TextToolCallParser, type TextParserEvent, type ToolCallFormatSetting } from './index.js';
import { CALL_CHARACTERS_MAXIMUM, OPENING_CHARACTERS_MAXIMUM } from './vocabulary/parser-limits.js';
import type { OfferedTool } from './vocabulary/text-tool-call-types.js';

type Setting = Exclude<ToolCallFormatSetting, 'native'>;

/** Characters the parser may examine per input character, every pass counted (measured worst: about 9). */
const WORK_PER_CHARACTER = 16;
const MEGABYTE = 1024 * 1024;
/** The delta size local servers stream in, give or take. */
const DELTA_CHARACTERS = 20;

interface Parsed {
  text: string;
  reasoning: string;
  calls: Array<{ name: string; argumentsJson: string; format: string }>;
  /** The events with neighbouring text (and reasoning) joined: the order of everything. */
  sequence: TextParserEvent[];
}

function summarise(events: readonly TextParserEvent[]): Parsed {
  const sequence: TextParserEvent[] = [];
  for (const event of events) {
    const last = sequence.at(-1);
    if (last !== undefined && event.type !== 'tool-call' && last.type === event.type) last.text += event.text;
    else sequence.push({ ...event });
  }
  const joined = (type: 'text' | 'reasoning') =>
    events
      .filter((event) => event.type === type)
      .map((event) => (event as { text: string }).text)
      .join('');
  const calls = events.flatMap((event) =>
    event.type === 'tool-call' ? [{ name: event.name, argumentsJson: event.argumentsJson, format: event.format }] : [],
  );
  return { text: joined('text'), reasoning: joined('reasoning'), calls, sequence };
}

function parseChunks(chunks: readonly string[], format: Setting = 'auto', tools: readonly OfferedTool[] = SAMPLE_TOOLS): Parsed {
  const parser = new TextToolCallParser({ tools, format });
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return summarise([...events, ...parser.end()]);
}

function parse(text: string, format: Setting = 'auto', tools: readonly OfferedTool[] = SAMPLE_TOOLS): Parsed {
  return parseChunks([text], format, tools);
}

function chunksAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts)].filter((cut) => cut > 0 && cut < text.length).sort((a, b) => a - b);
  return [0, ...points].map((start, index) => text.slice(start, points[index] ?? text.length));
}

function chunksOf(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks;
}

function expectCalls(parsed: Parsed, sample: FormatSample, format: string): void {
  expect(parsed.calls.map((call) => call.name)).toEqual(sample.calls.map((call) => call.name));
  parsed.calls.forEach((call, index) => {
    const expected = sample.calls[index]!;
    expect(call.format).toBe(format);
    if (expected.rawArguments !== undefined) expect(call.argumentsJson).toBe(expected.rawArguments);
    else expect(JSON.parse(call.argumentsJson)).toEqual(expected.arguments);
  });
}

/** Arbitrary chunkings of a text: random cut points, or fixed sizes down to single characters. */
function chunkings(text: string): fc.Arbitrary<string[]> {
  const cuts = fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: Math.min(40, text.length) })
    .map((points) => chunksAt(text, points));
  const sizes = fc.integer({ min: 1, max: 9 }).map((size) => chunksOf(text, size));
  return fc.oneof(cuts, sizes);
}

interface WorkReport {
  examinedPerCharacter: number;
  /** The most held outside a call after any push, and the most held inside one. */
  heldOutsideCall: number;
  heldInsideCall: number;
  /** Characters the events gave back (text, reasoning, and the input of calls). */
  callCount: number;
  emitted: number;
}

function measureWork(text: string, deltaCharacters: number | undefined): WorkReport {
  const parser = new TextToolCallParser({ tools: SAMPLE_TOOLS, format: 'auto' });
  const report: WorkReport = { examinedPerCharacter: 0, heldOutsideCall: 0, heldInsideCall: 0, callCount: 0, emitted: 0 };
  const observe = (events: TextParserEvent[]) => {
    for (const event of events) {
      if (event.type === 'tool-call') report.callCount += 1;
      else report.emitted += event.text.length;
    }
    const { heldCharacters, insideCall } = parser.statistics;
    if (insideCall) report.heldInsideCall = Math.max(report.heldInsideCall, heldCharacters);
    else report.heldOutsideCall = Math.max(report.heldOutsideCall, heldCharacters);
  };
  for (const chunk of deltaCharacters === undefined ? [text] : chunksOf(text, deltaCharacters)) observe(parser.push(chunk));
  observe(parser.end());
  report.examinedPerCharacter = parser.statistics.charactersExamined / text.length;
  return report;
}

function repeatTo(unit: string, characters: number): string {
  return unit.repeat(Math.ceil(characters / unit.length)).slice(0, characters);
}

function expectLinearAndBounded(text: string): void {
  for (const delta of [undefined, DELTA_CHARACTERS]) {
    const report = measureWork(text, delta);
    expect(report.examinedPerCharacter).toBeLessThanOrEqual(WORK_PER_CHARACTER);
    expect(report.heldOutsideCall).toBeLessThanOrEqual(OPENING_CHARACTERS_MAXIMUM);
    expect(report.heldInsideCall).toBeLessThanOrEqual(CALL_CHARACTERS_MAXIMUM);
    // Without calls, every character comes back out.
    if (report.callCount === 0) expect(report.emitted).toBe(text.length);
  }
}

describe('the sample table', () => {
  it('covers every format', () => {
    expect(FORMAT_SAMPLES.map((group) => group.format).sort()).toEqual([...TEXT_TOOL_CALL_FORMATS].sort());
  });
});

describe.each(FORMAT_SAMPLES)('format $format', ({ format, samples, mentions, namedOnly = false }) => {
  /** The settings that read this format's calls. */
  const readingSettings: readonly Setting[] = namedOnly ? [format] : ['auto', format];
  /** The setting the properties run in: `auto`, unless only the format's own setting reads it. */
  const home: Setting = namedOnly ? format : 'auto';

  describe.each(samples)('$description', (sample) => {
    it('reads its calls and keeps the text around them exactly, in auto mode and in its own setting', () => {
      for (const setting of readingSettings) {
        const parsed = parse(sample.text, setting);
        expectCalls(parsed, sample, format);
        expect(parsed.text).toBe(sample.answer);
      }
    });

    it('gives the same text, reasoning and calls in any chunking, single characters included', () => {
      const whole = parse(sample.text, home);
      expect(parseChunks(chunksOf(sample.text, 1), home)).toEqual(whole);
      fc.assert(
        fc.property(chunkings(sample.text), (chunks) => {
          const streamed = parseChunks(chunks, home);
          expect(streamed.text).toBe(whole.text);
          expect(streamed.calls).toEqual(whole.calls);
          expect(streamed.reasoning).toBe(whole.reasoning);
          expect(streamed.sequence).toEqual(whole.sequence);
        }),
        { numRuns: 60 },
      );
    });

    it('stays text exactly as written when its tools are not offered', () => {
      for (const setting of readingSettings) {
        const parsed = parse(sample.text, setting, UNRELATED_TOOLS);
        expect(parsed.calls).toEqual([]);
        expect(parsed.text).toBe(sample.answerWhenNotOffered ?? sample.text);
      }
    });

    it('stays text in a setting for another format', () => {
      const other = format === 'hermes' ? 'granite' : 'hermes';
      const parsed = parse(sample.text, other);
      expect(parsed.calls).toEqual([]);
    });
  });

  it.each(mentions)('leaves prose that mentions its tags as written: %s', (mention) => {
    for (const setting of ['auto', format] as const) {
      const whole = parse(mention, setting);
      expect(whole).toEqual({ text: mention, reasoning: '', calls: [], sequence: [{ type: 'text', text: mention }] });
      expect(parseChunks(chunksOf(mention, 1), setting).text).toBe(mention);
    }
  });

  it('parses 1 MB of its own openings cut short, repeated, in linear work and bounded hold-back', () => {
    const call = samples[0]!.text;
    for (const fraction of [0.35, 0.9])
      expectLinearAndBounded(repeatTo(call.slice(0, Math.max(1, Math.floor(call.length * fraction))), MEGABYTE));
  });
});

describe('formats mixed in one response', () => {
  const samples = FORMAT_SAMPLES.filter((group) => group.namedOnly !== true).flatMap((group) =>
    group.samples.map((sample) => ({ ...sample, format: group.format })),
  );
  const pieces = fc.array(
    fc.oneof(
      fc
        .constantFrom(...samples)
        .map((sample) => ({ text: sample.text, calls: sample.calls.map((call) => call.name), format: sample.format })),
      fc.constantFrom(...FORMAT_SAMPLES.flatMap((group) => group.mentions)).map((text) => ({ text, calls: [] as string[], format: '' })),
    ),
    { minLength: 1, maxLength: 6 },
  );

  it('reads every call in order, and any chunking gives the same events', () => {
    fc.assert(
      fc.property(
        pieces.chain((parts) => {
          const text = parts.map((part) => part.text).join('\n\n');
          return fc.tuple(fc.constant(parts), chunkings(text));
        }),
        ([parts, chunks]) => {
          const text = parts.map((part) => part.text).join('\n\n');
          const whole = parse(text);
          expect(whole.calls.map((call) => call.name)).toEqual(parts.flatMap((part) => part.calls));
          expect(whole.calls.map((call) => call.format)).toEqual(parts.flatMap((part) => part.calls.map(() => part.format)));
          expect(parseChunks(chunks)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('adversarial text', () => {
  const inputs: Array<[string, string]> = [
    ['repeated <tool_call without closing', repeatTo('<tool_call', MEGABYTE)],
    ['repeated <tool_call> without a body', repeatTo('<tool_call>', MEGABYTE)],
    ['repeated [TOOL_CALLS', repeatTo('[TOOL_CALLS', MEGABYTE)],
    ['repeated {"name"', repeatTo('{"name"', MEGABYTE)],
    ['repeated {"name": "get_weather", (an offered name, never closed)', repeatTo('{"name": "get_weather", ', MEGABYTE)],
    ['repeated <|', repeatTo('<|', MEGABYTE)],
    [
      'repeated Harmony headers',
      repeatTo('<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"a":', MEGABYTE),
    ],
    ['deeply nested brackets', repeatTo('[', MEGABYTE)],
    ['deeply nested braces', repeatTo('{', MEGABYTE)],
    ['a call whose arguments nest forever', `[{"name": "get_weather", "arguments": ${repeatTo('[', MEGABYTE)}`],
    ['a long run of backticks', repeatTo('`', MEGABYTE)],
    ['repeated fence openings', repeatTo('```tool_code\n', MEGABYTE)],
    ['blank space after an opening', repeatTo(`{${' '.repeat(300)}`, MEGABYTE)],
    ['repeated functools', repeatTo('functools', MEGABYTE)],
    [
      'MiniMax sections of 4000 unclosed parameters each, under the call size limit so each is parsed',
      repeatTo(
        `<minimax:tool_call><invoke name="get_weather">${'<parameter name="city">x'.repeat(4000)}</invoke></minimax:tool_call>`,
        MEGABYTE,
      ),
    ],
    ['FunctionGemma arguments nesting forever', `<start_function_call>call:get_weather{a:${repeatTo('{b:', MEGABYTE)}<end_function_call>`],
    ['FunctionGemma escapes never closed', `<start_function_call>call:get_weather{${repeatTo('a:<escape>', MEGABYTE)}<end_function_call>`],
    ['repeated stripped Harmony headers', repeatTo('assistantcommentary to=functions.get_weather json', MEGABYTE)],
    ['repeated >>> at the start', repeatTo('>>>', MEGABYTE)],
    ['an Apertus list of name-keyed objects never closed', `<|tools_prefix|>[${repeatTo('{"get_time": {}}, ', MEGABYTE)}`],
    ['repeated Gemma 4 openings with unclosed strings', repeatTo('<|tool_call>call:get_weather{city:<|"|>', MEGABYTE)],
    ['repeated LFM2 starts', repeatTo('<|tool_call_start|>[get_weather(', MEGABYTE)],
    ['repeated DSML sections', repeatTo('<｜DSML｜function_calls><｜DSML｜invoke name="get_weather">', MEGABYTE)],
  ];

  it.each(inputs)(
    '%s: linear work, hold-back within OPENING_CHARACTERS_MAXIMUM outside a call and CALL_CHARACTERS_MAXIMUM inside',
    (_name, text) => {
      expectLinearAndBounded(text);
    },
  );

  it('releases a call still open at CALL_CHARACTERS_MAXIMUM as text, exactly', () => {
    const text = `<tool_call>{"name": "get_weather", "arguments": {"city": "${'x'.repeat(CALL_CHARACTERS_MAXIMUM)}`;
    const whole = parse(text);
    expect(whole.calls).toEqual([]);
    expect(whole.text).toBe(text);
    expect(parseChunks(chunksOf(text, 4096))).toEqual(whole);
  });
});

describe('plain text', () => {
  /** Markdown prose with everything that looks a little like an opening: tags, brackets, fences, JSON, and words with f. */
  const paragraph = [
    'Photosynthesis turns light into chemical energy; see [the notes](https://example.org/notes) and <b>figure 2</b>.',
    'A set {1, 2, 3} and a list [a, b] are fine, as is `inline code` and the function f(x) = x² for fun.',
    'Some JSON: {"name": "Ada Lovelace", "field": "mathematics"} and [{"name": "Grace"}].',
    '```json\n{"name": "not a tool", "arguments": {}}\n```',
    '```python\ndef forward(x):\n    return [x, {"k": x}]\n```',
    'Harmony mentions <|channel|> tokens; Mistral mentions [TOOL_CALLS]; Hermes mentions <tool_call>.',
  ].join('\n\n');
  const prose = repeatTo(`${paragraph}\n\n`, MEGABYTE);

  it('streams 1 MB exactly as written, holding back at most OPENING_CHARACTERS_MAXIMUM and never a call', () => {
    const parser = new TextToolCallParser({ tools: SAMPLE_TOOLS, format: 'auto' });
    const output: string[] = [];
    let received = 0;
    let emitted = 0;
    for (const chunk of chunksOf(prose, DELTA_CHARACTERS)) {
      received += chunk.length;
      for (const event of parser.push(chunk)) {
        expect(event.type).toBe('text');
        if (event.type === 'text') {
          output.push(event.text);
          emitted += event.text.length;
        }
      }
      const { heldCharacters, insideCall } = parser.statistics;
      expect(insideCall).toBe(false);
      expect(heldCharacters).toBeLessThanOrEqual(OPENING_CHARACTERS_MAXIMUM);
      expect(received - emitted).toBe(heldCharacters);
    }
    for (const event of parser.end()) if (event.type === 'text') output.push(event.text);
    expect(output.join('')).toBe(prose);
    expect(parser.statistics.charactersExamined).toBeLessThanOrEqual(WORK_PER_CHARACTER * prose.length);
  });
});
