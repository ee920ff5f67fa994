/**
 * The completions catalogue of the API (/lamb/v1/completions): what the assistant form offers to
 * choose from, the installed tools with their config schemas, and the check of one tool's
 * config. The form's modules keep their own names for these shapes; the compiler checks each
 * against the answers here. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type CompletionsList = JsonAnswer<'/lamb/v1/completions/list', 'get'>;
export type InstalledTool = JsonAnswer<'/lamb/v1/completions/tools', 'get'>['tools'][number];
export type ToolConfigCheck = JsonAnswer<'/lamb/v1/completions/tools/{name}/validate', 'post'>;

/** Prompt processors, connectors with their models, and tools. */
export async function readCompletionsList(): Promise<CompletionsList> {
  return answerOf(apiClient.GET('/lamb/v1/completions/list'));
}

export async function listInstalledTools(): Promise<InstalledTool[]> {
  return (await answerOf(apiClient.GET('/lamb/v1/completions/tools'))).tools;
}

/** Checks a tool's per-assistant config against its schema, as saving would. */
export async function checkToolConfigOf(name: string, config: Record<string, unknown>): Promise<ToolConfigCheck> {
  return answerOf(apiClient.POST('/lamb/v1/completions/tools/{name}/validate', { params: { path: { name } }, body: { config } }));
}
