/** Proves LAMB's catalogue endpoints: installed tools with schemas, alias lookup, config validation listing every error, and the processors/connectors list. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe('the tool catalogue', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('lists every installed tool with its schema, placeholder, kind and aliases', async () => {
    const response = await request(server, 'GET', '/lamb/v1/completions/tools', { token });
    expect(response.status).toBe(200);
    const singleFile = response.body.tools.find((tool: { name: string }) => tool.name === 'single_file_rag');
    expect(singleFile).toMatchObject({
      display_name: 'Single file',
      placeholder: 'file',
      category: 'file',
      version: '1.0',
      kind: 'context',
      aliases: ['single_file'],
      config_schema: { type: 'object', required: ['file_path'] },
    });
    expect(response.body.tools.map((tool: { name: string }) => tool.name)).toEqual(expect.arrayContaining(['no_rag', 'single_file_rag']));
  });

  it('resolves a tool by an alias and answers 404 for an unknown name', async () => {
    expect((await request(server, 'GET', '/lamb/v1/completions/tools/single_file', { token })).body.name).toBe('single_file_rag');
    expect((await request(server, 'GET', '/lamb/v1/completions/tools/no_tool', { token })).body.name).toBe('no_rag');
    const unknown = await request(server, 'GET', '/lamb/v1/completions/tools/telepathy', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('name');
  });

  it('validates a config and lists every error with its path', async () => {
    const valid = await request(server, 'POST', '/lamb/v1/completions/tools/single_file_rag/validate', {
      token,
      body: { config: { file_path: '3/notes.md', max_chars: 500 } },
    });
    expect(valid.body).toEqual({ valid: true, errors: [] });
    const invalid = await request(server, 'POST', '/lamb/v1/completions/tools/single_file_rag/validate', {
      token,
      body: { config: { max_chars: 0, colour: 'red' } },
    });
    expect(invalid.body.valid).toBe(false);
    expect(invalid.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['colour', 'file_path', 'max_chars']);
  });

  it('lists prompt processors, connectors with their models, and tools', async () => {
    const response = await request(server, 'GET', '/lamb/v1/completions/list', { token });
    expect(response.body.prompt_processors).toEqual(expect.arrayContaining(['multi_augment', 'simple_augment']));
    expect(Object.keys(response.body.connectors)).toEqual(['anthropic', 'banana_img', 'bypass', 'gemini', 'ollama', 'openai']);
    expect(response.body.connectors.bypass.models).toEqual(['simple-bypass', 'debug-bypass', 'full-conversation-bypass']);
    expect(response.body.rag_processors).toEqual(expect.arrayContaining(['no_rag', 'single_file_rag']));
  });

  it('requires authentication', async () => {
    expect((await request(server, 'GET', '/lamb/v1/completions/list')).status).toBe(401);
  });
});
