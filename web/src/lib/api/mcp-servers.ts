/**
 * The MCP servers area of the API (/api/mcp-servers): an organization's servers, registered by its
 * admins, and the tools each lists, which the studio offers. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

export type McpServer = JsonAnswer<'/api/mcp-servers', 'get'>['items'][number];
export type McpServerTools = JsonAnswer<'/api/mcp-servers/{id}/tools', 'get'>;
export type NewMcpServer = RequestBody<'/api/mcp-servers', 'post'>;
export type McpServerPatch = RequestBody<'/api/mcp-servers/{id}', 'patch'>;

export async function listMcpServers(): Promise<McpServer[]> {
  return (await answerOf(apiClient.GET('/api/mcp-servers', { params: { query: { limit: 100 } } }))).items;
}

export async function registerMcpServer(body: NewMcpServer): Promise<McpServer> {
  return answerOf(apiClient.POST('/api/mcp-servers', { body }));
}

export async function updateMcpServer(id: number, body: McpServerPatch): Promise<McpServer> {
  return answerOf(apiClient.PATCH('/api/mcp-servers/{id}', { params: { path: { id } }, body }));
}

export async function deleteMcpServer(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/mcp-servers/{id}', { params: { path: { id } } }));
}

export async function listMcpServerTools(id: number): Promise<McpServerTools> {
  return answerOf(apiClient.GET('/api/mcp-servers/{id}/tools', { params: { path: { id } } }));
}
