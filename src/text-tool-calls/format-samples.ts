/**
 * Model output in every format, with the calls and text the parser must read from it: the table the
 * contract suite runs every property over, and the bench's input. Each sample keeps prose around its
 * calls where the format allows, so the suite can check that the prose survives untouched.
 */
import type { OfferedTool, TextToolCallFormat } from './text-tool-call-types.js';

export interface ExpectedCall {
  name: string;
  /** The arguments the call must carry (compared after parsing its JSON). */
  arguments?: Record<string, unknown>;
  /** For broken JSON: the exact text the call must carry instead. */
  rawArguments?: string;
}

export interface FormatSample {
  description: string;
  text: string;
  calls: ExpectedCall[];
  /** The text events joined. */
  answer: string;
  /** What the text events join to when none of the sample's tools is offered; the whole input when absent. */
  answerWhenNotOffered?: string;
}

export interface FormatSamples {
  format: TextToolCallFormat;
  samples: FormatSample[];
  /** Prose that mentions the format's tags or tokens without calling anything: it must stay as written. */
  mentions: string[];
}

export const SAMPLE_TOOLS: readonly OfferedTool[] = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        days: { type: 'integer' },
        metric: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        filters: { type: 'object' },
      },
      required: ['city'],
    },
  },
  { name: 'get_time', parameters: { type: 'object', properties: {} } },
  {
    name: 'search_course_materials',
    parameters: { type: 'object', properties: { query: { type: 'string' }, top_k: { type: ['integer', 'null'] } }, required: ['query'] },
  },
];

/** Tools none of the samples call, for the property that unknown names stay text. */
export const UNRELATED_TOOLS: readonly OfferedTool[] = [{ name: 'translate_text', parameters: { type: 'object', properties: {} } }];

const DEEPSEEK = {
  callsBegin: '<｜tool▁calls▁begin｜>',
  callsEnd: '<｜tool▁calls▁end｜>',
  callBegin: '<｜tool▁call▁begin｜>',
  callEnd: '<｜tool▁call▁end｜>',
  separator: '<｜tool▁sep｜>',
};

const DSML = {
  sectionOpen: '<｜DSML｜function_calls>',
  sectionClose: '</｜DSML｜function_calls>',
  v4Open: '<｜DSML｜tool_calls>',
  v4Close: '</｜DSML｜tool_calls>',
  invoke: (name: string) => `<｜DSML｜invoke name="${name}">`,
  invokeClose: '</｜DSML｜invoke>',
  parameter: (name: string, isString: boolean, value: string) =>
    `<｜DSML｜parameter name="${name}" string="${String(isString)}">${value}</｜DSML｜parameter>`,
};

export const FORMAT_SAMPLES: readonly FormatSamples[] = [
  {
    format: 'xml_function',
    samples: [
      {
        description: 'seed 004 shape, unwrapped, values typed by the schema',
        text: 'Let me check.\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\nDone.',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
        answer: 'Let me check.\n\nDone.',
      },
      {
        description: 'Qwen3-Coder wrapped, two calls, array and boolean values',
        text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nSão Paulo\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n<parameter=tags>\n["rain", "wind"]\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n</function>\n</tool_call>',
        calls: [
          { name: 'get_weather', arguments: { city: 'São Paulo', metric: true, tags: ['rain', 'wind'] } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\n',
      },
      {
        description: 'a multi-line string value holding < and quotes stays a string',
        text: '<function=search_course_materials>\n<parameter=query>\nif a < b:\n    print("x")\n</parameter>\n<parameter=top_k>\nnull\n</parameter>\n</function>',
        calls: [{ name: 'search_course_materials', arguments: { query: 'if a < b:\n    print("x")', top_k: null } }],
        answer: '',
      },
    ],
    mentions: [
      'In Qwen3-Coder a call starts with <function=name> and each argument with <parameter=key>.',
      'Close it with </function> and </tool_call>; <function=get_weather is incomplete.',
    ],
  },
  {
    format: 'hermes',
    samples: [
      {
        description: 'one call after prose',
        text: 'I will look that up.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 2 } }],
        answer: 'I will look that up.\n',
      },
      {
        description: 'two calls with text between and after',
        text: '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call> Back soon.',
        calls: [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\n Back soon.',
      },
      {
        description: 'arguments before the name',
        text: '<tool_call>{"arguments": {"city": "Rome"}, "name": "get_weather"}</tool_call>',
        calls: [{ name: 'get_weather', arguments: { city: 'Rome' } }],
        answer: '',
      },
      {
        description: 'broken JSON arguments are handed on as written',
        text: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris",}}\n</tool_call>',
        calls: [{ name: 'get_weather', rawArguments: '{"city": "Paris",}' }],
        answer: '',
      },
    ],
    mentions: [
      'Use the <tool_call> tag to call a tool.',
      'Write <tool_call>{"name": ...}</tool_call> when calling; <tool_call>{"name": "get_weat',
    ],
  },
  {
    format: 'json_array',
    samples: [
      {
        description: 'seed 004 format 3, two calls',
        text: '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
      {
        description: 'brackets inside strings, prose around',
        text: 'Calling now: [{"name": "search_course_materials", "arguments": {"query": "photosynthesis [light] {dark} \\"quoted\\"", "top_k": 3}}] ok',
        calls: [{ name: 'search_course_materials', arguments: { query: 'photosynthesis [light] {dark} "quoted"', top_k: 3 } }],
        answer: 'Calling now:  ok',
      },
    ],
    mentions: [
      'The list [1, 2, 3] and [{"a": 1}] are arrays; [see notes].',
      'A tool list: [{"name": "Ada"}] [{"name": "get_weather", "description": "weather"}]',
    ],
  },
  {
    format: 'llama3_json',
    samples: [
      {
        description: 'bare object with parameters',
        text: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: '',
      },
      {
        description: 'python tag, two calls separated by a semicolon',
        text: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {}}',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
      {
        description: 'a type member first, prose after',
        text: 'Sure. {"type": "function", "name": "get_time", "parameters": {}}; and that is all.',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: 'Sure. ; and that is all.',
      },
    ],
    mentions: [
      'A JSON object like {"name": "Ada", "age": 36} describes a person.',
      'The token <|python_tag|> starts a call; {"name" is a key.',
    ],
  },
  {
    format: 'pythonic',
    samples: [
      {
        description: 'Llama 3.2 list of calls, Python literals',
        text: '[get_weather(city="Paris", days=3, metric=True), get_time()]',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris', days: 3, metric: true } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
      {
        description: 'single quotes and nested quotes, prose around',
        text: 'Sure! [search_course_materials(query=\'cell "membrane" (outer)\', top_k=5)] Let me know.',
        calls: [{ name: 'search_course_materials', arguments: { query: 'cell "membrane" (outer)', top_k: 5 } }],
        answer: 'Sure!  Let me know.',
      },
      {
        description: 'Llama 4 python_start with lists, dicts and None',
        text: '<|python_start|>[get_weather(city="Rome", tags=["sun", \'heat\'], filters={"min": 1.5, "max": None})]<|python_end|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Rome', tags: ['sun', 'heat'], filters: { min: 1.5, max: null } } }],
        answer: '',
      },
    ],
    mentions: [
      'Call it like [get_weather] or get_weather(city) — see [docs](http://example.org).',
      'Lists [get_time, get_weather] are names only.',
    ],
  },
  {
    format: 'mistral',
    samples: [
      {
        description: 'before v11: a JSON list',
        text: '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcDEF123"}]',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: '',
      },
      {
        description: 'v11+: one marker per call',
        text: '[TOOL_CALLS]get_weather[ARGS]{"city": "Zürich"}[TOOL_CALLS]get_time[ARGS]{}',
        calls: [
          { name: 'get_weather', arguments: { city: 'Zürich' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
      {
        description: 'with a call id',
        text: 'Checking. [TOOL_CALLS]get_weather[CALL_ID]abcDEF123[ARGS]{"city": "Bern"}',
        calls: [{ name: 'get_weather', arguments: { city: 'Bern' } }],
        answer: 'Checking. ',
      },
    ],
    mentions: ['Mistral writes [TOOL_CALLS] before its calls, and [ARGS] before arguments.', '[TOOL_CALLS]get_weather is the start.'],
  },
  {
    format: 'deepseek_v3',
    samples: [
      {
        description: 'two calls with fenced arguments',
        text: `Checking.${DEEPSEEK.callsBegin}${DEEPSEEK.callBegin}function${DEEPSEEK.separator}get_weather\n\`\`\`json\n{"city": "Paris"}\n\`\`\`${DEEPSEEK.callEnd}\n${DEEPSEEK.callBegin}function${DEEPSEEK.separator}get_time\n\`\`\`json\n{}\n\`\`\`${DEEPSEEK.callEnd}${DEEPSEEK.callsEnd}`,
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: 'Checking.',
      },
    ],
    mentions: [`The token ${DEEPSEEK.callsBegin} starts DeepSeek calls and ${DEEPSEEK.callsEnd} ends them.`],
  },
  {
    format: 'deepseek_v31',
    samples: [
      {
        description: 'two calls, name before the separator',
        text: `${DEEPSEEK.callsBegin}${DEEPSEEK.callBegin}get_weather${DEEPSEEK.separator}{"city": "Paris"}${DEEPSEEK.callEnd}${DEEPSEEK.callBegin}get_time${DEEPSEEK.separator}{}${DEEPSEEK.callEnd}${DEEPSEEK.callsEnd} Done.`,
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: ' Done.',
      },
    ],
    mentions: [`V3.1 writes ${DEEPSEEK.callBegin}name${DEEPSEEK.separator} then the arguments.`],
  },
  {
    format: 'granite',
    samples: [
      {
        description: 'a list after the token',
        text: 'Let me see. <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: 'Let me see. ',
      },
    ],
    mentions: ['Granite emits <|tool_call|> first, then a JSON list.'],
  },
  {
    format: 'tool_calls_tag',
    samples: [
      {
        description: 'two calls in one tag pair',
        text: '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]</tool_calls>\nThanks.',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\nThanks.',
      },
    ],
    mentions: ['Jamba wraps calls in <tool_calls></tool_calls>.'],
  },
  {
    format: 'functools',
    samples: [
      {
        description: 'Phi-4-mini list',
        text: 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: '',
      },
      {
        description: 'Firefunction with a leading space and prose after',
        text: ' functools[{"name": "get_time", "arguments": {}}] after',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '  after',
      },
    ],
    mentions: ['Python has functools and functools.partial; functools[0] is not valid, nor functools [].'],
  },
  {
    format: 'glm',
    samples: [
      {
        description: 'GLM-4.5 with line breaks, integer typed',
        text: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
        answer: '',
      },
      {
        description: 'GLM-4.7 compact, array typed, prose around',
        text: 'ok<tool_call>get_weather<arg_key>city</arg_key><arg_value>Lyon</arg_value><arg_key>tags</arg_key><arg_value>["a","b"]</arg_value></tool_call>done',
        calls: [{ name: 'get_weather', arguments: { city: 'Lyon', tags: ['a', 'b'] } }],
        answer: 'okdone',
      },
      {
        description: 'a call without arguments',
        text: '<tool_call>get_time</tool_call>',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
      },
    ],
    mentions: ['<tool_call>get_weather is how GLM starts a call, followed by <arg_key>.'],
  },
  {
    format: 'kimi_k2',
    samples: [
      {
        description: 'a section of two calls',
        text: '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>\n<|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
    ],
    mentions: ['Kimi starts a section with <|tool_calls_section_begin|> and a call with <|tool_call_begin|>.'],
  },
  {
    format: 'harmony',
    samples: [
      {
        description: 'recipient in the channel part, constrained to JSON',
        text: '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: '',
      },
      {
        description: 'recipient in the role part',
        text: '<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
      },
      {
        description: 'a preamble on commentary, then a call',
        text: '<|start|>assistant<|channel|>commentary<|message|>Checking two things.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        answer: 'Checking two things.',
        answerWhenNotOffered:
          'Checking two things.<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
      },
    ],
    mentions: ['gpt-oss uses the <|channel|> and <|message|> tokens, and <|call|> to stop.'],
  },
  {
    format: 'gemma_tool_code',
    samples: [
      {
        description: 'a tool_code fence',
        text: 'Let me check.\n```tool_code\nget_weather(city="Paris")\n```\n',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: 'Let me check.\n\n',
      },
      {
        description: 'print and a namespace',
        text: '```tool_code\nprint(default_api.get_weather(city="Oslo", days=2))\n```',
        calls: [{ name: 'get_weather', arguments: { city: 'Oslo', days: 2 } }],
        answer: '',
      },
      {
        description: 'a json fence',
        text: '```json\n{"name": "get_time", "arguments": {}}\n```',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
      },
    ],
    mentions: ['Here is code:\n```python\nprint("hi")\n```\nand JSON:\n```json\n{"name": "Ada"}\n```\nand ```tool_code``` inline.'],
  },
  {
    format: 'openai_json',
    samples: [
      {
        description: 'OpenAI items with arguments as a JSON string',
        text: '{"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: '',
      },
      {
        description: 'a message with role and content first',
        text: '{"role": "assistant", "content": null, "tool_calls": [{"name": "get_time", "arguments": {}}]}',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
      },
    ],
    mentions: ['The API returns {"tool_calls": []} when nothing is called, or {"tool_calls": null}.'],
  },
  {
    format: 'lfm2',
    samples: [
      {
        description: 'a pythonic list between the special tokens, text after it',
        text: "<|tool_call_start|>[get_weather(city='Paris', days=3), get_time()]<|tool_call_end|>\nChecking both.",
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris', days: 3 } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\nChecking both.',
      },
      {
        description: 'a JSON list, as fine-tuned models write it',
        text: 'Sure. <|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]<|tool_call_end|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
        answer: 'Sure. ',
      },
    ],
    mentions: ['LFM2 writes <|tool_call_start|> before its list and <|tool_call_end|> after it: <|tool_call_start|>[f(x)]'],
  },
  {
    format: 'gemma4',
    samples: [
      {
        description: 'a call in Gemma notation, strings between quote tokens',
        text: 'Let me look.<|tool_call>call:get_weather{city:<|"|>Paris, France<|"|>,days:3,metric:true,tags:[<|"|>rain<|"|>]}<tool_call|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris, France', days: 3, metric: true, tags: ['rain'] } }],
        answer: 'Let me look.',
      },
      {
        description: 'thought channel, two calls, the second closed by the end-of-turn token',
        text: '<|channel>thought\nTwo lookups.<channel|><|tool_call>call:get_time{}<tool_call|><|tool_call>:call:get_weather{city:<|"|>Oslo<|"|>,filters:{<|"|>3<|"|>:<|"|>x<|"|>}}<turn|>',
        calls: [
          { name: 'get_time', arguments: {} },
          { name: 'get_weather', arguments: { city: 'Oslo', filters: { '3': 'x' } } },
        ],
        answer: '',
        answerWhenNotOffered:
          '<|tool_call>call:get_time{}<tool_call|><|tool_call>:call:get_weather{city:<|"|>Oslo<|"|>,filters:{<|"|>3<|"|>:<|"|>x<|"|>}}<turn|>',
      },
    ],
    mentions: [
      'Gemma 4 opens a call with <|tool_call> and closes it with <tool_call|>; strings use <|"|>.',
      'In the docs the bare shape starts with call:get_weather and its braces.',
    ],
  },
  {
    format: 'olmo3',
    samples: [
      {
        description: 'two calls on separate lines, JSON literals mixed in',
        text: "<function_calls>get_weather(city='Paris', metric=true)\nsearch_course_materials(query='cells', top_k=null)</function_calls>",
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris', metric: true } },
          { name: 'search_course_materials', arguments: { query: 'cells', top_k: null } },
        ],
        answer: '',
      },
      {
        description: 'prose before a call without arguments',
        text: 'One moment. <function_calls>get_time()</function_calls>',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: 'One moment. ',
      },
    ],
    mentions: ['Olmo wraps calls in <function_calls></function_calls>, like <function_calls><invoke name="x"> in other models.'],
  },
  {
    format: 'deepseek_v32',
    samples: [
      {
        description: 'one invoke, string and JSON parameters',
        text: `Checking.${DSML.sectionOpen}\n${DSML.invoke('get_weather')}\n${DSML.parameter('city', true, 'Paris')}\n${DSML.parameter('days', false, '3')}\n${DSML.parameter('tags', false, '["rain"]')}\n${DSML.invokeClose}\n${DSML.sectionClose}`,
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3, tags: ['rain'] } }],
        answer: 'Checking.',
      },
      {
        description: 'two invokes in a V4 tool_calls section, one without parameters',
        text: `${DSML.v4Open}${DSML.invoke('get_time')}${DSML.invokeClose}${DSML.invoke('search_course_materials')}${DSML.parameter('query', true, 'a < b')}${DSML.invokeClose}${DSML.v4Close} Done.`,
        calls: [
          { name: 'get_time', arguments: {} },
          { name: 'search_course_materials', arguments: { query: 'a < b' } },
        ],
        answer: ' Done.',
      },
    ],
    mentions: [`DeepSeek V3.2 opens calls with ${DSML.sectionOpen} and an ${DSML.invoke('name')} element.`],
  },
  {
    format: 'gigachat3',
    samples: [
      {
        description: 'GigaChat 3: a function call message, ended by </s>',
        text: 'I will check.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Paris", "filters": {"wind": true}}}</s>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', filters: { wind: true } } }],
        answer: 'I will check.',
      },
      {
        description: 'GigaChat 3.1: one token before the JSON',
        text: '<|function_call|>{"name": "get_time", "arguments": {}}',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
      },
    ],
    mentions: ['GigaChat separates messages with <|message_sep|> and writes "function call<|role_sep|>" before a call.'],
  },
  {
    format: 'cohere_command',
    samples: [
      {
        description: 'an action list of two calls',
        text: '<|START_ACTION|>\n[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}},\n    {"tool_call_id": "1", "tool_name": "get_time", "parameters": {}}\n]\n<|END_ACTION|>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
      {
        description: 'thinking, then an action',
        text: '<|START_THINKING|>I will look it up.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "search_course_materials", "parameters": {"query": "cells", "top_k": 2}}]<|END_ACTION|>',
        calls: [{ name: 'search_course_materials', arguments: { query: 'cells', top_k: 2 } }],
        answer: '',
        answerWhenNotOffered:
          '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "search_course_materials", "parameters": {"query": "cells", "top_k": 2}}]<|END_ACTION|>',
      },
      {
        description: 'a response block with citation marks, then an action',
        text: '<|START_RESPONSE|>It is <co>sunny</co: 0:[1,2]> today.<|END_RESPONSE|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time", "parameters": {}}]<|END_ACTION|>',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: 'It is sunny today.',
        answerWhenNotOffered:
          'It is sunny today.<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time", "parameters": {}}]<|END_ACTION|>',
      },
    ],
    mentions: [
      'Command writes <|START_ACTION|> before a JSON list with "tool_name" and <|END_ACTION|> after it.',
      'Its answers sit in <|START_RESPONSE|> blocks with <co>cited</co: 0:[1]> spans.',
      'Action: ```json\n[{"tool_name": "some_tool", "parameters": {}}]\n``` is how Command R acts; Action: is also a word.',
    ],
  },
  {
    format: 'seed_oss',
    samples: [
      {
        description: 'a call with prose before it',
        text: 'Let me check.\n<seed:tool_call>\n<function=get_time>\n</function>\n</seed:tool_call>',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: 'Let me check.\n',
      },
      {
        description: 'reasoning in seed tags, then a call typed by the schema',
        text: '<seed:think>The user wants Paris.<seed:cot_budget_reflect>I have used 10 tokens.</seed:cot_budget_reflect></seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>2</parameter>\n</function>\n</seed:tool_call>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 2 } }],
        answer: '\n',
        answerWhenNotOffered:
          '\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>2</parameter>\n</function>\n</seed:tool_call>',
      },
    ],
    mentions: ['Seed-OSS wraps <function=name> calls in <seed:tool_call> tags and thinks in <seed:think>.'],
  },
  {
    format: 'minimax_m1',
    samples: [
      {
        description: 'two call objects on their own lines',
        text: 'Checking. <tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "get_time", "arguments": {}}\n</tool_calls>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: 'Checking. ',
      },
    ],
    mentions: ['MiniMax writes <tool_calls> then one {"name": …} object per line.'],
  },
];
