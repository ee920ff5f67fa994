/**
 * Proves that an installation extends Merino by dropping plain JavaScript into PLUGINS_DIR, with
 * no rebuild: the real server process loads a tool, a connector and a prompt processor from it
 * (each importing the plugin API as `merino/plugin-api`), logs `Loaded …` for each, and an
 * assistant built from the three answers through the real pipeline and tool loop. Broken plugins
 * (a syntax error, a throw at import, a definition that fails validation, one that claims a
 * built-in name, a TypeScript file) are each logged with their reason and skipped, and the server
 * serves; the built-in weather tool is still the built-in one.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { possiblyUnset } from './support/possibly-unset.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request } from './support/test-server.js';

/** A function tool: the model's text, shouted; refuses an empty text with the catalogue's error. */
const SHOUT_TOOL = `
import { AppError, defineTool } from 'merino/plugin-api';
export default defineTool({
  name: 'shout',
  displayName: 'Shout',
  description: 'Repeats a text in capitals.',
  category: 'function',
  version: '1.0',
  configSchema: { type: 'object', properties: { suffix: { type: 'string', default: '!' } } },
  function: {
    describe: () => ({ name: 'shout', description: 'Repeat a text in capitals.' }),
    parameters: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    async call(argumentsFromModel, context, config) {
      if (argumentsFromModel.text.trim() === '') throw new AppError('invalid_body', 'shout: "text" is empty.');
      return { content: argumentsFromModel.text.toUpperCase() + config.suffix };
    },
  },
});
`;

/** A model without a provider: asks for the offered function once, then answers with what it returned. */
const SCRIPTED_CONNECTOR = `
import { defineConnector, messageText } from 'merino/plugin-api';
export default defineConnector({
  name: 'scripted',
  description: 'Calls the first offered function with the last question, then repeats its result.',
  models: () => ['scripted-1'],
  async *complete(request) {
    const last = request.messages.at(-1);
    const offered = request.tools ?? [];
    if (last.role === 'tool' || offered.length === 0) {
      const system = messageText(request.messages[0].content);
      yield { type: 'text-delta', text: 'Tool said: ' + messageText(last.content) + ' | system: ' + system };
    } else {
      const question = messageText(last.content);
      yield { type: 'tool-call', call: { id: 'call_1', name: offered[0].name, argumentsJson: JSON.stringify({ text: question }) } };
    }
    yield { type: 'usage', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } };
    yield { type: 'finish', finishReason: last.role === 'tool' || offered.length === 0 ? 'stop' : 'tool_calls' };
  },
});
`;

/** A prompt processor that marks the system prompt, so the answer shows it ran. */
const MARKING_PROCESSOR = `
import { definePromptProcessor, messageText } from 'merino/plugin-api';
export default definePromptProcessor({
  name: 'marked_augment',
  description: 'Puts a mark before the system prompt.',
  process(input) {
    return [{ role: 'system', content: '[marked] ' + input.assistant.systemPrompt }, ...input.messages.filter((message) => message.role !== 'system')];
  },
});
`;

const BROKEN_PLUGINS: Record<string, string> = {
  'tools/syntax_error.mjs': 'export default {',
  'tools/throws_at_import.mjs': "throw new Error('no licence file');\n",
  'tools/invalid_definition.mjs': "export default { name: 'Bad Name', displayName: 'x' };\n",
  'tools/weather.mjs': SHOUT_TOOL.replace("name: 'shout'", "name: 'weather'"),
  'connectors/written_in_typescript.ts': 'export default {} as unknown;\n',
};

describe('plugins dropped into PLUGINS_DIR', () => {
  let database: TestDatabase;
  let dataDirectory: string;
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    dataDirectory = await mkdtemp(path.join(os.tmpdir(), 'merino-plugins-'));
    const plugins = path.join(dataDirectory, 'plugins');
    const files: Record<string, string> = {
      'tools/shout.mjs': SHOUT_TOOL,
      'connectors/scripted.mjs': SCRIPTED_CONNECTOR,
      'prompt-processors/marked_augment.mjs': MARKING_PROCESSOR,
      ...BROKEN_PLUGINS,
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(plugins, name)), { recursive: true });
      await writeFile(path.join(plugins, name), text);
    }
    server = await startServerProcess(database, { DATA_DIR: dataDirectory, MODEL_LIST_TEST_CONNECTORS: 'true' });
    token = (await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.token;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.kill();
    await possiblyUnset(database)?.drop();
    const folder = possiblyUnset(dataDirectory);
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });

  it('loads the dropped tool, connector and prompt processor, and skips each broken one with its reason', () => {
    const output = server.output();
    for (const line of ['Loaded tool: shout', 'Loaded connector: scripted', 'Loaded prompt processor: marked_augment'])
      expect(output).toContain(line);
    expect(output).toMatch(/Failed to load plugins\/tools\/syntax_error\.mjs: [^"]*Unexpected/);
    expect(output).toContain('Failed to load plugins/tools/throws_at_import.mjs: no licence file');
    expect(output).toMatch(/Failed to load plugins\/tools\/invalid_definition\.mjs: \\"name\\" must match/);
    expect(output).toContain('Failed to load plugins/tools/weather.mjs: a built-in tool is already named \\"weather\\"');
    // Only plain JavaScript is taken from the plugin folder: a .ts file would need a build.
    expect(output).not.toContain('written_in_typescript');
  });

  it('serves, and lists the dropped tool in the catalogue beside the built-in weather tool', async () => {
    expect((await request(server, 'GET', '/healthz')).status).toBe(200);
    const catalogue = await request(server, 'GET', '/lamb/v1/completions/tools', { token });
    expect(catalogue.status, catalogue.text).toBe(200);
    const tools = JSON.stringify(catalogue.body);
    expect(tools).toContain('Repeats a text in capitals.');
    expect(tools).not.toContain('Repeat a text in capitals');
    expect(tools).toMatch(/"name":"weather"/);
  });

  it('answers through the dropped connector, prompt processor and tool in the real tool loop', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Loud helper',
        system_prompt: 'Be loud.',
        prompt_template: '{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'scripted',
          llm: 'scripted-1',
          prompt_processor: 'marked_augment',
          tools: [{ type: 'shout', config: {} }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hello there' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.choices[0].message.content).toBe('Tool said: HELLO THERE! | system: [marked] Be loud.');
  });
});
