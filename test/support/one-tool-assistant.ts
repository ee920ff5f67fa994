/**
 * A multi-tool assistant on the OpenAI connector with one knowledge tool over one knowledge base,
 * for the suites that try a tool's bounds: each test creates its own with the config it tries and
 * speaks to it by its model name.
 */
import { expect } from 'vitest';
import { request, type TestServer } from './test-server.js';

export interface OneToolAssistantOptions {
  /** A random suffix is added, so tests of one suite never share an assistant. */
  name: string;
  systemPrompt: string;
  /** The OpenAI model the assistant answers with. */
  llm: string;
  toolType: string;
  knowledgeBaseId: number;
  /** The tool's config besides its collection. */
  config?: Record<string, unknown>;
}

/** Creates the assistant as `token` and answers its model name, `lamb_assistant.<id>`. */
export async function createOneToolAssistant(server: TestServer, token: string, options: OneToolAssistantOptions): Promise<string> {
  const created = await request(server, 'POST', '/api/assistants', {
    token,
    body: {
      name: `${options.name} ${Math.random()}`,
      system_prompt: options.systemPrompt,
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: options.llm,
        tools: [{ type: options.toolType, config: { collections: [String(options.knowledgeBaseId)], ...options.config } }],
      },
    },
  });
  expect(created.status, created.text).toBe(201);
  return `lamb_assistant.${created.body.id}`;
}
