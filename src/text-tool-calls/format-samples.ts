/**
 * Model output in every format, with the calls and text the parser must read from it: the table the
 * contract suite runs every property over, and the bench's input. Each sample keeps prose around its
 * calls where the format allows, so the suite can check that the prose survives untouched.
 */
import type { OfferedTool, TextToolCallFormat } from './vocabulary/text-tool-call-types.js';

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
  /**
   * Read everywhere only in the format's own setting (its opening is ordinary text elsewhere): `auto`
   * may read a sample only where it stands alone, so the properties run in the format's setting.
   */
  namedOnly?: boolean;
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
    format: 'apertus',
    samples: [
      {
        description: 'prose, then a list of one name-keyed call',
        text: 'Let me check. <|tools_prefix|>[{"get_weather": {"city": "Paris", "days": 2}}]<|tools_suffix|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 2 } }],
        answer: 'Let me check. ',
      },
      {
        description: 'two calls in one list',
        text: '<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}, {"get_time": {}}]<|tools_suffix|>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
      {
        description: 'reasoning between the inner tokens, and the suffix stripped by the server',
        text: '<|inner_prefix|>I need the time.<|inner_suffix|><|tools_prefix|>[{"get_time": {}}]',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
        answerWhenNotOffered: '<|tools_prefix|>[{"get_time": {}}]',
      },
    ],
    mentions: ['Apertus wraps calls in <|tools_prefix|> and <|tools_suffix|>, as in <|tools_prefix|>[{"name": {}}].'],
  },
  {
    format: 'internlm2',
    samples: [
      {
        description: 'prose, then a plugin action',
        text: 'Let me check. <|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>',
        calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
        answer: 'Let me check. ',
      },
      {
        description: 'empty parameters, text after',
        text: '<|action_start|><|plugin|>{"name": "get_time", "parameters": {}}<|action_end|>Done.',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: 'Done.',
      },
    ],
    mentions: ['InternLM2 runs code after <|action_start|><|interpreter|> and calls plugins after <|action_start|><|plugin|>.'],
  },
  {
    format: 'granite_20b_fc',
    samples: [
      {
        description: 'prose, then one call',
        text: 'Let me check the weather for you.\n<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}',
        calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
        answer: 'Let me check the weather for you.\n',
      },
      {
        description: 'two calls, one per tag',
        text: '<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo", "days": 1}}\n<function_call> {"name": "get_time", "arguments": {}}',
        calls: [
          { name: 'get_weather', arguments: { city: 'Tokyo', days: 1 } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\n',
      },
    ],
    mentions: ['Granite 20B starts each call with <function_call> and then a JSON object such as {"name": "x"}.'],
  },
  {
    format: 'longcat',
    samples: [
      {
        description: 'text before and after',
        text: 'Let me check the weather for you.\n<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>\nHere is the result.',
        calls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
        answer: 'Let me check the weather for you.\n\nHere is the result.',
      },
      {
        description: 'two calls',
        text: '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</longcat_tool_call>\n<longcat_tool_call>{"name": "get_time", "arguments": {}}</longcat_tool_call>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Tokyo' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\n',
      },
    ],
    mentions: ['LongCat wraps each call in <longcat_tool_call> and </longcat_tool_call>.'],
  },
  {
    format: 'function_gemma',
    samples: [
      {
        description: 'escaped strings, bare number and boolean',
        text: 'Let me check. <start_function_call>call:get_weather{city:<escape>San Francisco, CA<escape>,days:3,metric:true}<end_function_call>',
        calls: [{ name: 'get_weather', arguments: { city: 'San Francisco, CA', days: 3, metric: true } }],
        answer: 'Let me check. ',
      },
      {
        description: 'a list, a nested object, an escaped integer typed by the schema, and a second call',
        text: '<start_function_call>call:get_weather{city:<escape>Oslo<escape>,days:<escape>4<escape>,tags:[<escape>rain<escape>,<escape>wind<escape>],filters:{hours:6,kind:<escape>rain<escape>}}<end_function_call><start_function_call>call:get_time{}<end_function_call>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Oslo', days: 4, tags: ['rain', 'wind'], filters: { hours: 6, kind: 'rain' } } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
    ],
    mentions: ['FunctionGemma writes <start_function_call>call:name{…}<end_function_call>, strings between <escape> tokens.'],
  },
  {
    format: 'minimax_m2',
    samples: [
      {
        description: 'one invocation, values typed by the schema',
        text: 'Let me check.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Seattle</parameter>\n<parameter name="days">5</parameter>\n</invoke>\n</minimax:tool_call>',
        calls: [{ name: 'get_weather', arguments: { city: 'Seattle', days: 5 } }],
        answer: 'Let me check.\n',
      },
      {
        description: 'two invocations; a string keeps its spaces and a closing tag it contains',
        text: '<minimax:tool_call><invoke name="search_course_materials"><parameter name="query">  if x: </parameter> in it</parameter></invoke><invoke name="get_time"></invoke></minimax:tool_call> Done.',
        calls: [
          { name: 'search_course_materials', arguments: { query: '  if x: </parameter> in it' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: ' Done.',
      },
    ],
    mentions: ['MiniMax M2 calls look like <minimax:tool_call><invoke name="tool">…</invoke></minimax:tool_call>.'],
  },
  {
    format: 'step3',
    samples: [
      {
        description: 'prose around a section with the function header',
        text: 'Let me check the weather for you.\n\n<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter><steptml:parameter name="days"> 4 </steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>\n\nI will get that information.',
        calls: [{ name: 'get_weather', arguments: { city: 'Tokyo', days: 4 } }],
        answer: 'Let me check the weather for you.\n\n\n\nI will get that information.',
      },
      {
        description: 'two calls without the header',
        text: '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_sep｜><｜tool_call_begin｜><steptml:invoke name="get_time"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Tokyo' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '',
      },
    ],
    mentions: ['Step3 opens a section with <｜tool_calls_begin｜> and writes <steptml:invoke name="…"> inside.'],
  },
  {
    format: 'hunyuan',
    samples: [
      {
        description: 'the answer wrapper around one call',
        text: '<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>\n</answer>',
        calls: [{ name: 'get_weather', arguments: { city: 'Boston' } }],
        answer: '',
      },
      {
        description: 'reasoning, then the answer wrapper around the calls',
        text: '<think>\nNeed the weather.\n</think>\n<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}, {"name": "get_time", "arguments": {}}]</tool_calls>\n</answer>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Boston' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\n',
        answerWhenNotOffered:
          '\n<answer>\n<tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}, {"name": "get_time", "arguments": {}}]</tool_calls>\n</answer>',
      },
    ],
    mentions: ['Hunyuan puts its reply in <answer> tags and its calls in <tool_calls>.'],
  },
  {
    format: 'functionary_v31',
    samples: [
      {
        description: 'calls inside the text',
        text: 'Hell<function=get_weather>{"city": "Paris"}</function>o, world<function=get_time>{}</function>!',
        calls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: {} },
        ],
        answer: 'Hello, world!',
      },
    ],
    mentions: ['Functionary writes <function=name>{…}</function>; Qwen3-Coder writes <function=name><parameter=…>.'],
  },
  {
    format: 'functionary_v32',
    namedOnly: true,
    samples: [
      {
        description: 'two calls',
        text: '>>>get_weather\n{"city": "Oslo", "days": 2}\n>>>get_time\n{}',
        calls: [
          { name: 'get_weather', arguments: { city: 'Oslo', days: 2 } },
          { name: 'get_time', arguments: {} },
        ],
        answer: '\n',
      },
      {
        description: 'text for the user, then a call',
        text: '>>>all\nLet me call a tool\n>>>get_weather\n{"city": "Paris"}',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: 'Let me call a tool\n',
        answerWhenNotOffered: 'Let me call a tool\n>>>get_weather\n{"city": "Paris"}',
      },
    ],
    mentions: ['In the REPL type >>> get_weather("Paris"); Functionary starts its text with >>>all and a line break.'],
  },
  {
    format: 'nemotron_v2',
    samples: [
      {
        description: 'prose, then a list of calls',
        text: 'Let me check that.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Tokyo", "metric": true}}, {"name": "get_time", "arguments": {}}]</TOOLCALL>',
        calls: [
          { name: 'get_weather', arguments: { city: 'Tokyo', metric: true } },
          { name: 'get_time', arguments: {} },
        ],
        answer: 'Let me check that.',
      },
      {
        description: 'one object without a list',
        text: '<TOOLCALL>{"name": "get_time", "arguments": {}}</TOOLCALL>',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: '',
      },
    ],
    mentions: ['Nemotron wraps its calls in <TOOLCALL> and </TOOLCALL>.'],
  },
  {
    format: 'harmony_plain',
    namedOnly: true,
    samples: [
      {
        description: 'a call whose tokens were stripped, the content type glued on',
        text: 'assistantcommentary to=functions.get_weather json{"city": "Paris"}',
        calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
        answer: '',
      },
      {
        description: 'prose, a call without role or content type, and prose',
        text: 'Checking now. commentary to=functions.get_time {} Back soon.',
        calls: [{ name: 'get_time', arguments: {} }],
        answer: 'Checking now.  Back soon.',
      },
    ],
    mentions: ['The commentary channel carries calls, as in commentary to=functions.name json{…}, and the final channel the answer.'],
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
