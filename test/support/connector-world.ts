/**
 * The world a connector test runs in: a server whose environment points the connector at its fake,
 * the admin's session and organization, the official OpenAI client in front of Merino, and two
 * assistants on the connector (a plain one and one with a knowledge-base tool, for the tool loop).
 */
import OpenAI from 'openai';
import { expect } from 'vitest';
import type { Dialect } from './test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './test-server.js';

export interface ConnectorWorldOptions {
  dialect: Dialect;
  connector: string;
  model: string;
  /** The server's environment: the connector's key and base URL, its timeouts. */
  environment: Record<string, string>;
}

export interface ConnectorWorld {
  server: TestServer;
  token: string;
  organizationId: number;
  client: OpenAI;
  /** The model name of an assistant on the connector with no tools. */
  plainModel: string;
  /** The model name of a multi-tool assistant on the connector that may list an empty knowledge base. */
  toolModel: string;
}

async function createAssistant(server: TestServer, token: string, metadata: Record<string, unknown>): Promise<string> {
  const created = await request(server, 'POST', '/api/assistants', {
    token,
    body: { name: `Tutor ${Math.random()}`, system_prompt: 'You are a patient tutor.', metadata },
  });
  expect(created.status, created.text).toBe(201);
  return `lamb_assistant.${created.body.id}`;
}

export async function startConnectorWorld(options: ConnectorWorldOptions): Promise<ConnectorWorld> {
  const server = await startTestServer(options.dialect, { environment: options.environment });
  const token = await loginAsAdmin(server);
  const organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id;
  const client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  const onConnector = { connector: options.connector, llm: options.model };
  const plainModel = await createAssistant(server, token, onConnector);
  const knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Empty shelf' } })).body.id;
  const toolModel = await createAssistant(server, token, {
    ...onConnector,
    assistant_type: 'multi_tool',
    tools: [{ type: 'list_documents', config: { collections: [String(knowledgeBase)] } }],
  });
  return { server, token, organizationId, client, plainModel, toolModel };
}
