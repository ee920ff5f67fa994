// Proves the quirks of the issue 18 group A families that the contract table cannot hold (it joins
// samples, so a call that only the end of the text closes cannot be one): calls whose closing token
// never came, Gemma 4's bare calls read only in its own setting, stray closing tokens dropped only
// where a call has just ended or the text ends, Cohere's citation marks removed however the stream
// is cut, and the repairs and readings the engines make (pythonic strings, DSML JSON, GigaChat's
// required arguments).
import { describe, expect, it } from 'vitest';
import { SAMPLE_TOOLS } from './format-samples.js';
import { OPENING_CHARACTERS_MAXIMUM } from './vocabulary/parser-limits.js';
import { TextToolCallParser, type TextParserEvent, type ToolCallFormatSetting } from './index.js';
import type { OfferedTool } from './vocabulary/text-tool-call-types.js';

type Setting = Exclude<ToolCallFormatSetting, 'native'>;

const SHELL_TOOLS: readonly OfferedTool[] = [
  ...SAMPLE_TOOLS,
  { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
];

interface Parsed {
  text: string;
  reasoning: string;
  calls: Array<{ name: string; arguments: unknown; format: string }>;
}

function summarise(events: readonly TextParserEvent[]): Parsed {
  const joined = (type: 'text' | 'reasoning') => events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
  const calls = events.flatMap((event) =>
    event.type === 'tool-call' ? [{ name: event.name, arguments: JSON.parse(event.argumentsJson) as unknown, format: event.format }] : [],
  );
  return { text: joined('text'), reasoning: joined('reasoning'), calls };
}

/** Parses whole and one character at a time; both must agree, and the whole result is answered. */
function parse(text: string, format: Setting = 'auto', tools: readonly OfferedTool[] = SHELL_TOOLS): Parsed {
  const whole = new TextToolCallParser({ tools, format });
  const result = summarise([...whole.push(text), ...whole.end()]);
  const streamed = new TextToolCallParser({ tools, format });
  const events: TextParserEvent[] = [];
  for (let index = 0; index < text.length; index += 1) events.push(...streamed.push(text.charAt(index)));
  events.push(...streamed.end());
  expect(summarise(events)).toEqual(result);
  return result;
}

describe('calls whose closing token never came', () => {
  it('reads a complete LFM2 list, pythonic or JSON, with no end token', () => {
    expect(parse('<|tool_call_start|>[get_weather(city="Paris")]').calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' }, format: 'lfm2' },
    ]);
    expect(parse("<|tool_call_start|>bash(command='ls')<|tool_call_end|> Done.")).toEqual({
      text: ' Done.',
      reasoning: '',
      calls: [{ name: 'bash', arguments: { command: 'ls' }, format: 'lfm2' }],
    });
    expect(parse('<|tool_call_start|>{"name": "get_time", "arguments": {}}').calls).toEqual([
      { name: 'get_time', arguments: {}, format: 'lfm2' },
    ]);
  });

  it('leaves an LFM2 list the text cuts off as text', () => {
    const text = '<|tool_call_start|>[get_weather(city="Par';
    expect(parse(text)).toEqual({ text, reasoning: '', calls: [] });
  });

  it('reads MiniMax-M1 objects the text ends after, and keeps a cut-off one as text', () => {
    expect(parse('<tool_calls>\n{"name": "get_time", "arguments": {}}\n').calls).toEqual([
      { name: 'get_time', arguments: {}, format: 'minimax_m1' },
    ]);
    const cut = '<tool_calls>\n{"name": "get_time", "arguments": {}}\n{"name": "get_weather", "arguments": {"ci';
    expect(parse(cut)).toEqual({ text: cut, reasoning: '', calls: [] });
  });

  it('reads a Gemma 4 call whose braces closed, and not one whose braces did not', () => {
    expect(parse('<|tool_call>:call:get_weather{city:<|"|>Rome<|"|>}').calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Rome' }, format: 'gemma4' },
    ]);
    const cut = '<|tool_call>call:get_weather{city:<|"|>Rome';
    expect(parse(cut)).toEqual({ text: cut, reasoning: '', calls: [] });
  });

  it('reads a GigaChat 3.1 call with no end-of-sequence token, and the prose after it stays text', () => {
    expect(parse('<|function_call|>{"name": "get_time", "arguments": {}} Then I answer.')).toEqual({
      text: ' Then I answer.',
      reasoning: '',
      calls: [{ name: 'get_time', arguments: {}, format: 'gigachat3' }],
    });
  });
});

describe("Gemma 4's bare calls", () => {
  const bare = '<|channel>thought\nList it.<channel|>call:bash{command:<|"|>ls -la<|"|>}';

  it('are read in the gemma4 setting, after the thought channel or anywhere', () => {
    expect(parse(bare, 'gemma4')).toEqual({
      text: '',
      reasoning: 'List it.',
      calls: [{ name: 'bash', arguments: { command: 'ls -la' }, format: 'gemma4' }],
    });
    expect(parse('some prose\ncall:bash{command:<|"|>make<|"|>}', 'gemma4').calls).toHaveLength(1);
  });

  it('stay text in auto mode, where prose can start with the same word', () => {
    expect(parse(bare)).toEqual({ text: 'call:bash{command:<|"|>ls -la<|"|>}', reasoning: 'List it.', calls: [] });
    const prose = 'To place a call:get_weather{…} is what the docs show.';
    expect(parse(prose, 'gemma4')).toEqual({ text: prose, reasoning: '', calls: [] });
  });
});

describe("Gemma 4's notation", () => {
  it('keeps quotes, backslashes and line breaks inside its strings as written, and reads JSON strings as JSON', () => {
    const text =
      '<|tool_call>call:bash{command:<|"|>echo "a, b" C:\\tmp\\x\n<|"|>,note:"say \\"hi\\", then go",list:[{k:<|"|>]<|"|>,n:-1.5}]}<tool_call|>';
    expect(parse(text).calls).toEqual([
      {
        name: 'bash',
        arguments: { command: 'echo "a, b" C:\\tmp\\x\n', note: 'say "hi", then go', list: [{ k: ']', n: -1.5 }] },
        format: 'gemma4',
      },
    ]);
  });
});

describe('stray closing tokens', () => {
  it('are dropped right after a call or, for Gemma 4, at the very end of the text', () => {
    expect(parse('<|function_call|>{"name": "get_time", "arguments": {}}</s>').text).toBe('');
    expect(parse('<|tool_call_start|>[get_time()]<|tool_call_end|>').text).toBe('');
    expect(parse('Hello.<channel|>').text).toBe('Hello.');
    expect(parse('<|tool_call_start|>[]<|tool_call_end|>')).toEqual({ text: '', reasoning: '', calls: [] });
  });

  it('stay text anywhere else', () => {
    const prose = 'Servers end with </s> and LFM2 with <|tool_call_end|>; Gemma closes with <channel|> too.';
    expect(parse(prose)).toEqual({ text: prose, reasoning: '', calls: [] });
  });
});

describe("Cohere Command's blocks", () => {
  const text =
    '<|START_THINKING|>A <co>cited</co: 0:[1]> thought.<|END_THINKING|><|START_TEXT|>It is <co>sunny</co: 0:[1,2],1:[3]>.<|END_TEXT|>';

  it('stream thinking as reasoning and the answer as text, without tokens or citation marks, however cut', () => {
    expect(parse(text)).toEqual({ text: 'It is sunny.', reasoning: 'A cited thought.', calls: [] });
  });

  it('end an answer at the end-of-turn token too, and drop that token after a block or at the end of the text', () => {
    expect(parse('<|START_THINKING|>t<|END_THINKING|><|START_TEXT|>answer<|END_OF_TURN_TOKEN|>', 'cohere_command').text).toBe('answer');
    expect(parse('<|START_TEXT|>hi<|END_TEXT|><|END_OF_TURN_TOKEN|>').text).toBe('hi');
    expect(parse('plain answer<|END_OF_TURN_TOKEN|>').text).toBe('plain answer');
    const prose = 'Command ends a turn with <|END_OF_TURN_TOKEN|> and then stops.';
    expect(parse(prose).text).toBe(prose);
  });

  it('read the action items one by one: a broken item is skipped, a missing comma does not matter', () => {
    const broken =
      '<|START_ACTION|>[\n{"tool_call_id": "0", "tool_name": "get_time", "parameters": {"at": 15:30}},\n{"tool_call_id": "1", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}\n]<|END_ACTION|>';
    expect(parse(broken).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' }, format: 'cohere_command' }]);
    const commaless =
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time", "parameters": {}}{"tool_call_id": "1", "tool_name": "bash", "parameters": {"command": "{not json}"}}]<|END_ACTION|>';
    expect(parse(commaless).calls.map((call) => call.name)).toEqual(['get_time', 'bash']);
  });

  it("read Command R's fenced Action block in the cohere_command setting only", () => {
    const text = 'I will look it up.\nAction: ```json\n{\n    "tool_name": "get_weather",\n    "parameters": {"city": "Lima"}\n}\n```';
    expect(parse(text, 'cohere_command')).toEqual({
      text: 'I will look it up.\n',
      reasoning: '',
      calls: [{ name: 'get_weather', arguments: { city: 'Lima' }, format: 'cohere_command' }],
    });
    expect(parse(text)).toEqual({ text, reasoning: '', calls: [] });
  });

  it('keep a citation-like mark that never closes as text', () => {
    const unclosed = `<|START_RESPONSE|>a </co: ${'x'.repeat(200)}<|END_RESPONSE|>`;
    expect(parse(unclosed).text).toBe(`a </co: ${'x'.repeat(200)}`);
  });
});

describe('readings and repairs the engines make', () => {
  it('repairs pythonic strings holding a raw line break or their own quote unescaped', () => {
    expect(parse("<|tool_call_start|>[bash(command='cat > f.py << EOF\nprint(1)\nEOF')]<|tool_call_end|>").calls).toEqual([
      { name: 'bash', arguments: { command: 'cat > f.py << EOF\nprint(1)\nEOF' }, format: 'lfm2' },
    ]);
    expect(parse("<function_calls>bash(command='sed -n '360,450p' a.py')</function_calls>").calls).toEqual([
      { name: 'bash', arguments: { command: "sed -n '360,450p' a.py" }, format: 'olmo3' },
    ]);
  });

  it('reads DSML values marked string="false" as JSON, and an invoke holding a JSON object as its arguments', () => {
    const marked =
      '<｜DSML｜function_calls><｜DSML｜invoke name="get_weather"><｜DSML｜parameter name="city" string="false">"Oslo"</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>';
    expect(parse(marked).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Oslo' }, format: 'deepseek_v32' }]);
    const json =
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n{"city": "Lima", "days": 2}\n</｜DSML｜invoke>\n</｜DSML｜function_calls>';
    expect(parse(json).calls).toEqual([{ name: 'get_weather', arguments: { city: 'Lima', days: 2 }, format: 'deepseek_v32' }]);
  });

  it('skips a MiniMax-M1 line that is no call object, and keeps the block text when a line names a tool not offered', () => {
    const skipped =
      '<tool_calls>\n{"name": "get_time", "arguments": {}}\n{invalid json here}\n{"arguments": {"city": "Oslo"}}\n</tool_calls>';
    expect(parse(skipped)).toEqual({ text: '', reasoning: '', calls: [{ name: 'get_time', arguments: {}, format: 'minimax_m1' }] });
    const foreign = '<tool_calls>\n{"name": "get_time", "arguments": {}}\n{"name": "translate_text", "arguments": {}}\n</tool_calls>';
    expect(parse(foreign)).toEqual({ text: foreign, reasoning: '', calls: [] });
  });

  it('takes a GigaChat object without arguments for no call', () => {
    const text = '<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_time"}';
    expect(parse(text)).toEqual({ text, reasoning: '', calls: [] });
  });

  it("keeps a Seed-OSS value's own trailing line break, as llama.cpp does", () => {
    const text = '<seed:tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</seed:tool_call>';
    expect(parse(text).calls).toEqual([{ name: 'bash', arguments: { command: 'ls\n' }, format: 'seed_oss' }]);
  });
});

describe('blocks whose tokens are dropped', () => {
  /** As the contract suite counts it: characters examined per input character (measured worst elsewhere: about 9). */
  const WORK_PER_CHARACTER = 16;
  const MEGABYTE = 1024 * 1024;
  const repeatTo = (unit: string) => unit.repeat(Math.ceil(MEGABYTE / unit.length)).slice(0, MEGABYTE);

  it.each([
    ['a Cohere response full of unclosed citation marks', `<|START_RESPONSE|>${repeatTo('</co: 0:[1')}`],
    ['a Cohere response full of citation openings and cut end tokens', `<|START_RESPONSE|>${repeatTo('<co><|END_RESP')}`],
    ['repeated Gemma 4 thought channels', repeatTo('<|channel>thought\n<|channel>')],
    ['repeated stray closers', repeatTo('<channel|></s><|tool_call_end|>')],
  ])('%s: linear work and a hold-back within one opening, whole and in 20-character deltas', (_name, text) => {
    for (const size of [text.length, 20]) {
      const instance = new TextToolCallParser({ tools: SHELL_TOOLS, format: 'auto' });
      let held = 0;
      for (let index = 0; index < text.length; index += size) {
        instance.push(text.slice(index, index + size));
        held = Math.max(held, instance.statistics.heldCharacters);
      }
      instance.end();
      expect(instance.statistics.charactersExamined / text.length).toBeLessThanOrEqual(WORK_PER_CHARACTER);
      expect(held).toBeLessThanOrEqual(OPENING_CHARACTERS_MAXIMUM);
    }
  });
});
