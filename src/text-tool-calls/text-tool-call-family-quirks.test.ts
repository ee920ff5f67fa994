// Proves what the per-format contract cannot express for the families whose output has quirks: end
// tokens a server strips (a closed invocation still counts, a cut-off one stays text), openings read
// only in a format's own setting (gpt-oss's stripped channel words, Hunyuan's shared tags), markers
// dropped only where they carry no text, and arguments each family's notation rules out. Every case
// is parsed whole and one character at a time, which must agree.
import { describe, expect, it } from 'vitest';
import { SAMPLE_TOOLS } from './format-samples.js';
import { TextToolCallParser, type TextParserEvent, type ToolCallFormatSetting } from './index.js';

type Setting = Exclude<ToolCallFormatSetting, 'native'>;

interface Parsed {
  text: string;
  reasoning: string;
  calls: string[];
}

function run(chunks: readonly string[], format: Setting): Parsed {
  const parser = new TextToolCallParser({ tools: SAMPLE_TOOLS, format });
  const events: TextParserEvent[] = [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
  const joined = (type: 'text' | 'reasoning') => events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
  return {
    text: joined('text'),
    reasoning: joined('reasoning'),
    calls: events.flatMap((event) => (event.type === 'tool-call' ? [`${event.format}:${event.name}${event.argumentsJson}`] : [])),
  };
}

/** Parses whole and one UTF-16 unit at a time (splitting surrogate pairs too); both must agree. */
function parse(text: string, format: Setting = 'auto'): Parsed {
  const whole = run([text], format);
  expect(
    run(
      Array.from({ length: text.length }, (_, index) => text.charAt(index)),
      format,
    ),
  ).toEqual(whole);
  return whole;
}

describe('end tokens a server strips', () => {
  it('MiniMax M2: a section whose invocations all closed counts without its closing tag; one cut off stays text', () => {
    expect(parse('<minimax:tool_call><invoke name="get_time"></invoke>')).toEqual({
      text: '',
      reasoning: '',
      calls: ['minimax_m2:get_time{}'],
    });
    const cut = '<minimax:tool_call><invoke name="get_weather"><parameter name="city">Par';
    expect(parse(cut)).toEqual({ text: cut, reasoning: '', calls: [] });
  });

  it('Step3: the same for a section without its end token', () => {
    const text = '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_time"></steptml:invoke><｜tool_call_end｜>';
    expect(parse(text).calls).toEqual(['step3:get_time{}']);
    const cut = '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_time"><steptml:parameter name="x">1';
    expect(parse(cut)).toEqual({ text: cut, reasoning: '', calls: [] });
  });

  it('FunctionGemma: a call whose braces closed counts without its end token; one cut off stays text', () => {
    expect(parse('<start_function_call>call:get_weather{city:<escape>Oslo<escape>}').calls).toEqual([
      'function_gemma:get_weather{"city":"Oslo"}',
    ]);
    const cut = '<start_function_call>call:get_weather{city:<escape>Os';
    expect(parse(cut)).toEqual({ text: cut, reasoning: '', calls: [] });
  });

  it('Apertus: the list ends the call, and a suffix after it is dropped but one in prose is kept', () => {
    expect(parse('<|tools_prefix|>[{"get_time": {}}]\n<|tools_suffix|>')).toEqual({
      text: '\n',
      reasoning: '',
      calls: ['apertus:get_time{}'],
    });
    const prose = 'The list closes with <|tools_suffix|> after it.';
    expect(parse(prose).text).toBe(prose);
  });
});

describe('values written between tags', () => {
  it('MiniMax M2: one line break after the opening tag and before the close is markup, spaces are data', () => {
    expect(
      parse('<minimax:tool_call><invoke name="get_weather"><parameter name="city">\n  Tokyo \n</parameter></invoke></minimax:tool_call>')
        .calls,
    ).toEqual(['minimax_m2:get_weather{"city":"  Tokyo "}']);
  });

  it('Step3: values are inline, so a trailing line break is data', () => {
    const text =
      '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo\n</steptml:parameter></steptml:invoke><｜tool_calls_end｜>';
    expect(parse(text).calls).toEqual(['step3:get_weather{"city":"Tokyo\\n"}']);
  });
});

describe('markers dropped only where they carry nothing', () => {
  it("Apertus: the turn's start and a final end token are dropped, an end token inside the text is kept", () => {
    expect(parse('<|assistant_start|>Hi.<|inner_prefix|>Think.<|inner_suffix|> Bye.<|assistant_end|>\n')).toEqual({
      text: 'Hi. Bye.\n',
      reasoning: 'Think.',
      calls: [],
    });
    expect(parse('Tokens like <|assistant_end|> end a turn.').text).toBe('Tokens like <|assistant_end|> end a turn.');
  });

  it('FunctionGemma: a missing comma between members is not needed; an escaped value is a string unless the schema says otherwise', () => {
    expect(parse('<start_function_call>call:get_weather{city:<escape>NYC<escape>days:<escape>3<escape>}<end_function_call>').calls).toEqual(
      ['function_gemma:get_weather{"city":"NYC","days":3}'],
    );
    expect(parse('<start_function_call>call:get_time{offset:<escape>007<escape>}<end_function_call>').calls).toEqual([
      'function_gemma:get_time{"offset":"007"}',
    ]);
  });

  it('Apertus: arguments that are not an object, or two tools in one item, are no call', () => {
    for (const text of [
      '<|tools_prefix|>[{"get_time": "now"}]<|tools_suffix|>',
      '<|tools_prefix|>[{"get_time": {}, "get_weather": {}}]<|tools_suffix|>',
    ])
      expect(parse(text).calls).toEqual([]);
  });

  it('Hunyuan: a </answer> right after a call is dropped; in prose it stays', () => {
    expect(parse('<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>\n</answer>')).toEqual({
      text: '\n',
      reasoning: '',
      calls: ['tool_calls_tag:get_time{}'],
    });
    expect(parse('Close it with </answer> please.').text).toBe('Close it with </answer> please.');
  });
});

describe('openings read only in their own setting', () => {
  const stripped = 'analysisNeed the weather.assistantcommentary to=functions.get_weather json{"city": "Paris"}assistantfinalIt is sunny.';

  it('gpt-oss with its tokens stripped: in harmony_plain the channel words are headers', () => {
    expect(parse(stripped, 'harmony_plain')).toEqual({
      text: 'It is sunny.',
      reasoning: 'Need the weather.',
      calls: ['harmony_plain:get_weather{"city":"Paris"}'],
    });
    expect(parse('analysisWe looked.assistantcommentaryChecking.assistantfinalDone.', 'harmony_plain')).toEqual({
      text: 'Checking.Done.',
      reasoning: 'We looked.',
      calls: [],
    });
  });

  it('gpt-oss with its tokens stripped: auto leaves all of it, ordinary English, as text', () => {
    expect(parse(stripped)).toEqual({ text: stripped, reasoning: '', calls: [] });
    const prose = 'analysis of the final commentary: to=functions is a recipient.';
    expect(parse(prose, 'harmony_plain').calls).toEqual([]);
    expect(parse('assistant to=functions.get_timecommentary json{}', 'harmony_plain').calls).toEqual(['harmony_plain:get_time{}']);
  });

  it('gpt-oss whose <|start|>assistant is in the prompt: the answer opens with the recipient, read only there', () => {
    expect(parse(' to=functions.get_time<|channel|>commentary <|constrain|>json<|message|>{}')).toEqual({
      text: ' ',
      reasoning: '',
      calls: ['harmony:get_time{}'],
    });
    const prose = 'Address it to=functions.get_time<|channel|>commentary<|message|>{}';
    expect(parse(prose).calls).toEqual([]);
  });

  it('Hunyuan and Jamba share <tool_calls>: reported as Hunyuan in its setting, as tool_calls_tag otherwise', () => {
    const text = '<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>';
    expect(parse(text, 'hunyuan').calls).toEqual(['hunyuan:get_time{}']);
    expect(parse(text, 'tool_calls_tag').calls).toEqual(['tool_calls_tag:get_time{}']);
    expect(parse(text).calls).toEqual(['tool_calls_tag:get_time{}']);
  });

  it('Functionary v3.1 and Qwen3-Coder share <function=…>: the body decides', () => {
    expect(parse('<function=get_weather>{"city": "Rome"}</function>').calls).toEqual(['functionary_v31:get_weather{"city":"Rome"}']);
    expect(parse('<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>').calls).toEqual([
      'xml_function:get_weather{"city":"Rome"}',
    ]);
  });

  it('Functionary v3.2: auto reads >>> messages where an answer starts, not mid-text; its setting reads them anywhere', () => {
    expect(parse('>>>all\nHello!\n>>>get_time\n{}')).toEqual({ text: 'Hello!\n>>>get_time\n{}', reasoning: '', calls: [] });
    expect(parse('>>>all\nHello!\n>>>get_time\n{}', 'functionary_v32')).toEqual({
      text: 'Hello!\n',
      reasoning: '',
      calls: ['functionary_v32:get_time{}'],
    });
    expect(parse('<think>x</think>>>>get_time\n{}')).toEqual({ text: '', reasoning: 'x', calls: ['functionary_v32:get_time{}'] });
    const quote = 'Quoted thrice:\n>>>get_time\n{}';
    expect(parse(quote)).toEqual({ text: quote, reasoning: '', calls: [] });
  });

  it('Functionary v3.2: a bare recipient is read only at the start of the answer, and prose there stays', () => {
    expect(parse('all\nHello, world!', 'functionary_v32')).toEqual({ text: 'Hello, world!', reasoning: '', calls: [] });
    expect(parse('get_weather\n{"city": "Rome"}\n>>>all\nDone.', 'functionary_v32')).toEqual({
      text: '\nDone.',
      reasoning: '',
      calls: ['functionary_v32:get_weather{"city":"Rome"}'],
    });
    expect(parse('all\nHello, world!')).toEqual({ text: 'all\nHello, world!', reasoning: '', calls: [] });
    expect(parse('Sure: get_weather\n{"city": "Rome"}', 'functionary_v32').calls).toEqual([]);
  });
});
