// Proves the parser's behaviour beyond the per-format contract: text streams at once and only a
// possible opening waits; reasoning streams as it arrives; auto mode leaves markdown and JSON that
// call nothing alone; values are typed by schema or Python rules; broken arguments are handed on as
// written; and the parser's own rules (settings, end, size limit).
import { describe, expect, it } from 'vitest';
import { SAMPLE_TOOLS } from './format-samples.js';
import { TextToolCallParser, type TextParserEvent, type ToolCallFormatSetting } from './index.js';
import { CALL_CHARACTERS_MAXIMUM } from './vocabulary/parser-limits.js';
import type { OfferedTool } from './vocabulary/text-tool-call-types.js';

type Setting = Exclude<ToolCallFormatSetting, 'native'>;

function parser(format: Setting = 'auto', tools: readonly OfferedTool[] = SAMPLE_TOOLS): TextToolCallParser {
  return new TextToolCallParser({ tools, format });
}

function parseAll(text: string, format: Setting = 'auto', tools: readonly OfferedTool[] = SAMPLE_TOOLS): TextParserEvent[] {
  const instance = parser(format, tools);
  return [...instance.push(text), ...instance.end()];
}

/** The text events joined, for answers whose text may arrive in several events (push, then end). */
function textOf(events: readonly TextParserEvent[]): string {
  return events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');
}

function expectTextOnly(text: string): void {
  const events = parseAll(text);
  expect(events.every((event) => event.type === 'text')).toBe(true);
  expect(textOf(events)).toBe(text);
}

function callArguments(events: readonly TextParserEvent[]): unknown[] {
  return events.flatMap((event) => (event.type === 'tool-call' ? [JSON.parse(event.argumentsJson) as unknown] : []));
}

function rawArguments(events: readonly TextParserEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'tool-call' ? [event.argumentsJson] : []));
}

describe('streaming', () => {
  it('emits text before a possible call at once and holds back only the possible opening', () => {
    const instance = parser();
    expect(instance.push('Hello <tool')).toEqual([{ type: 'text', text: 'Hello ' }]);
    expect(instance.statistics.heldCharacters).toBe('<tool'.length);
    expect(instance.push('_call>{"name": "get_weather"')).toEqual([]);
    expect(instance.statistics.insideCall).toBe(true);
    expect(instance.push(', "arguments": {"city": "Paris"}}</tool_call> bye')).toEqual([
      { type: 'tool-call', name: 'get_weather', argumentsJson: '{"city":"Paris"}', format: 'hermes' },
      { type: 'text', text: ' bye' },
    ]);
    expect(instance.end()).toEqual([]);
  });

  it('releases a held fragment as text as soon as it cannot become an opening', () => {
    const instance = parser();
    expect(instance.push('a <tool')).toEqual([{ type: 'text', text: 'a ' }]);
    expect(instance.push('box> b')).toEqual([{ type: 'text', text: '<toolbox> b' }]);
    expect(instance.statistics.heldCharacters).toBe(0);
  });

  it('emits a fragment still held at the end as text', () => {
    const instance = parser();
    expect(instance.push('see <tool_call>{"name": "get_wea')).toEqual([{ type: 'text', text: 'see ' }]);
    expect(instance.end()).toEqual([{ type: 'text', text: '<tool_call>{"name": "get_wea' }]);
  });

  it('treats a call cut off by the end of the text as text', () => {
    expect(parseAll('{"name": "get_weather", "arguments": {"city": "Par')).toEqual([
      { type: 'text', text: '{"name": "get_weather", "arguments": {"city": "Par' },
    ]);
  });

  it('reads a Hermes call whose closing tag never came, keeping what followed as text', () => {
    expect(parseAll('<tool_call>{"name": "get_time", "arguments": {}}\nOne moment.')).toEqual([
      { type: 'tool-call', name: 'get_time', argumentsJson: '{}', format: 'hermes' },
      { type: 'text', text: '\nOne moment.' },
    ]);
  });

  it('releases a call still open at CALL_CHARACTERS_MAXIMUM as text and goes on parsing after it', () => {
    const instance = parser();
    const open = `<tool_call>{"name": "get_weather", "arguments": {"city": "${'x'.repeat(CALL_CHARACTERS_MAXIMUM)}`;
    const events = [...instance.push(open), ...instance.push('"}}</tool_call>[get_time()]'), ...instance.end()];
    const text = events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');
    expect(text).toBe(`${open}"}}</tool_call>`);
    expect(events.at(-1)).toEqual({ type: 'tool-call', name: 'get_time', argumentsJson: '{}', format: 'pythonic' });
  });
});

describe('reasoning', () => {
  it('streams a <think> block as reasoning while it arrives and removes it from the answer', () => {
    const instance = parser();
    expect(instance.push('<think>Let me')).toEqual([{ type: 'reasoning', text: 'Let me' }]);
    expect(instance.push(' think</th')).toEqual([{ type: 'reasoning', text: ' think' }]);
    expect(instance.push('ink>The answer.')).toEqual([{ type: 'text', text: 'The answer.' }]);
  });

  it('streams Magistral [THINK] blocks the same way', () => {
    expect(parseAll('[THINK]Check the weather.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Bern"}')).toEqual([
      { type: 'reasoning', text: 'Check the weather.' },
      { type: 'tool-call', name: 'get_weather', argumentsJson: '{"city":"Bern"}', format: 'mistral' },
    ]);
  });

  it('treats Harmony analysis as reasoning and the final channel as plain text', () => {
    const instance = parser();
    expect(instance.push('<|channel|>analysis<|message|>User asks 2+2.')).toEqual([{ type: 'reasoning', text: 'User asks 2+2.' }]);
    expect(instance.push('<|end|><|start|>assistant<|channel|>final<|message|>2 + 2 = 4.')).toEqual([{ type: 'text', text: '2 + 2 = 4.' }]);
    expect(instance.push('<|return|>')).toEqual([]);
    expect(instance.end()).toEqual([]);
  });

  it('reads a reasoning block before a call and another after it', () => {
    expect(
      parseAll('<think>need weather</think>\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n<think>done</think>It is noon.'),
    ).toEqual([
      { type: 'reasoning', text: 'need weather' },
      { type: 'text', text: '\n' },
      { type: 'tool-call', name: 'get_time', argumentsJson: '{}', format: 'hermes' },
      { type: 'text', text: '\n' },
      { type: 'reasoning', text: 'done' },
      { type: 'text', text: 'It is noon.' },
    ]);
  });

  it('leaves a <think> tag that prose mentions mid-sentence as text', () => {
    expectTextOnly('Models wrap reasoning in <think> and </think> tags.');
  });

  it('strips reasoning in every setting, calls or not', () => {
    expect(parseAll('<think>hmm</think>Plain answer.', 'hermes', [])).toEqual([
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'Plain answer.' },
    ]);
  });
});

describe('auto mode on ordinary answers', () => {
  it('keeps a markdown answer with ```json fences that call nothing exactly as written', () => {
    const text = [
      'Here is the configuration:',
      '```json\n{"name": "my-app", "version": "1.0.0", "scripts": {"test": "vitest"}}\n```',
      'And a list:\n```json\n[{"name": "Ada"}, {"name": "Grace"}]\n```',
      'Inline `{"name": "x"}` and a fence without a language:\n```\n{"name": "get_weather"}\n```',
    ].join('\n\n');
    expectTextOnly(text);
  });

  it('keeps JSON objects in prose that name no offered tool as text', () => {
    const text =
      'The user {"name": "Ada", "role": "admin"} and the record {"id": 7, "name": "get_weather_v2"} and {"tool": "get_weather"}.';
    expectTextOnly(text);
  });

  it('keeps a tool definition the model recites (it has a description) as text', () => {
    const text = 'My tools: {"name": "get_weather", "description": "Current weather", "parameters": {"type": "object"}}';
    expectTextOnly(text);
  });

  it('needs the arguments member before bare JSON counts as a call', () => {
    expectTextOnly('The record is {"name": "get_weather"} in the log, and [{"name": "get_time"}] too.');
  });

  it('reads several calls of different formats in one response, in order', () => {
    const events = parseAll('First <tool_call>{"name": "get_time", "arguments": {}}</tool_call> then [get_weather(city="Oslo")] and done.');
    expect(events).toEqual([
      { type: 'text', text: 'First ' },
      { type: 'tool-call', name: 'get_time', argumentsJson: '{}', format: 'hermes' },
      { type: 'text', text: ' then ' },
      { type: 'tool-call', name: 'get_weather', argumentsJson: '{"city":"Oslo"}', format: 'pythonic' },
      { type: 'text', text: ' and done.' },
    ]);
  });

  it('keeps a whole block as text when one of its calls names a tool that was not offered', () => {
    expectTextOnly('[{"name": "get_time", "arguments": {}}, {"name": "delete_everything", "arguments": {}}]');
  });
});

describe('argument values', () => {
  const typed: OfferedTool = {
    name: 'typed',
    parameters: {
      type: 'object',
      properties: {
        count: { type: 'integer' },
        ratio: { type: 'number' },
        flag: { type: 'boolean' },
        items: { type: 'array' },
        options: { type: 'object' },
        label: { type: 'string' },
        maybe: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      },
    },
  };

  it('types XML values by the schema and keeps strings and undeclared parameters as text', () => {
    const text = [
      '<function=typed>',
      '<parameter=count>\n42\n</parameter>',
      '<parameter=ratio>\n-1.5e2\n</parameter>',
      '<parameter=flag>\nFalse\n</parameter>',
      '<parameter=items>\n[1, "two", null]\n</parameter>',
      "<parameter=options>\n{'deep': True}\n</parameter>",
      '<parameter=label>\n007\n</parameter>',
      '<parameter=maybe>\nnull\n</parameter>',
      '<parameter=extra>\n12\n</parameter>',
      '</function>',
    ].join('\n');
    expect(callArguments(parseAll(text, 'auto', [typed]))).toEqual([
      { count: 42, ratio: -150, flag: false, items: [1, 'two', null], options: { deep: true }, label: '007', maybe: null, extra: '12' },
    ]);
  });

  it('keeps an XML value that does not fit its declared type as the text written, for the tool to reject', () => {
    expect(
      callArguments(parseAll('<tool_call>typed<arg_key>count</arg_key><arg_value>many</arg_value></tool_call>', 'glm', [typed])),
    ).toEqual([{ count: 'many' }]);
  });

  it('reads pythonic arguments by Python literal rules', () => {
    const text = `[typed(count=0x1F, ratio=-2.5, flag=True, items=(1, 'a', None), options={'k': [1_000, """multi\nline"""]}, label=r'C:\\path' "!")]`;
    expect(callArguments(parseAll(text, 'auto', [typed]))).toEqual([
      { count: 31, ratio: -2.5, flag: true, items: [1, 'a', null], options: { k: [1000, 'multi\nline'] }, label: 'C:\\path!' },
    ]);
  });

  it('hands on pythonic arguments that are not keyword literals as written', () => {
    expect(rawArguments(parseAll('[get_weather("Paris", days=compute())]'))).toEqual(['"Paris", days=compute()']);
  });
});

describe('broken JSON arguments', () => {
  it.each([
    ['mistral', '[TOOL_CALLS]get_weather[ARGS]{"city": Paris}', '{"city": Paris}'],
    [
      'kimi_k2',
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{city: "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
      '{city: "Paris"}',
    ],
    ['harmony', '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"<|call|>', '{"city": "Paris"'],
    [
      'deepseek_v31',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": \'Paris\'}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      '{"city": \'Paris\'}',
    ],
    ['openai_json', '{"tool_calls": [{"function": {"name": "get_weather", "arguments": "{city: Paris}"}}]}', '{city: Paris}'],
    ['json_array', '[{"name": "get_weather", "arguments": {"city": "Paris", "days": }}]', '{"city": "Paris", "days": }'],
  ] as const)('%s: the call carries the text the model wrote, never {}', (format, text, expected) => {
    const events = parseAll(text, format);
    expect(events).toEqual([{ type: 'tool-call', name: 'get_weather', argumentsJson: expected, format }]);
  });
});

describe('settings', () => {
  it('refuses the native setting, which needs no text parser', () => {
    expect(() => new TextToolCallParser({ tools: SAMPLE_TOOLS, format: 'native' as Setting })).toThrow(/native/);
  });

  it('reads only the chosen format', () => {
    const text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>[get_time()]';
    expect(parseAll(text, 'pythonic')).toEqual([
      { type: 'text', text: '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>' },
      { type: 'tool-call', name: 'get_time', argumentsJson: '{}', format: 'pythonic' },
    ]);
  });

  it('tells DeepSeek V3 from V3.1 and keeps the other one as text in a single-version setting', () => {
    const v31 = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    expect(parseAll(v31, 'deepseek_v3')).toEqual([{ type: 'text', text: v31 }]);
    expect(parseAll(v31, 'deepseek_v31')).toEqual([{ type: 'tool-call', name: 'get_time', argumentsJson: '{}', format: 'deepseek_v31' }]);
  });

  it('ends once: a second end emits nothing and a push after it is refused', () => {
    const instance = parser();
    expect(instance.push('done <tool')).toEqual([{ type: 'text', text: 'done ' }]);
    expect(instance.end()).toEqual([{ type: 'text', text: '<tool' }]);
    expect(instance.end()).toEqual([]);
    expect(() => instance.push('more')).toThrow(/after end/);
  });

  it('with no tools offered, still removes reasoning and leaves everything else as text', () => {
    const text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>';
    expect(parseAll(`<think>x</think>${text}`, 'auto', [])).toEqual([
      { type: 'reasoning', text: 'x' },
      { type: 'text', text },
    ]);
  });
});
