/**
 * Merino's assistants as an MCP server (docs/mcp.md). For each request the HTTP edge asks for a
 * server bound to the caller: it lists one tool per assistant the caller may chat with, and one
 * prompt per assistant whose configuration the caller may read, and runs a tool call through the
 * same completion service, quotas and rate limits as `/v1/chat/completions`. Every decision is
 * the permission module's, taken at call time, so a revoked share refuses the next call.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, GetPromptResult, Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallContext } from '../auth/call-context.js';
import { assistantListScope, decideAssistant } from '../auth/permissions.js';
import type { RateLimiter } from '../auth/rate-limiter.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import type { CompletionService } from '../completions/completion-service.js';
import { MODEL_ID_PREFIX } from '../completions/completion-service.js';
import { isAppError } from '../errors/app-error.js';
import { listedSources, type Source } from '../pipeline/conversation/events.js';
import { findAssistant, listAssistants, type AssistantRecord } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';
import { createAjv } from '../validation/create-ajv.js';
import { describeAjvError } from '../validation/json-schema-problems.js';
import { validatorOnFirstUse, type ValidatorOnFirstUse } from '../validation/validator-on-first-use.js';
import { McpCancellations } from './mcp-cancellations.js';
import { mcpServerSdk } from './mcp-server-sdk.js';
import { McpSessions, type McpSessionLimits } from './mcp-sessions.js';
import { toolInputSchema, toolOutputSchema, type McpInputLimits, type McpToolInput } from './mcp-schemas.js';
import { assistantIdOfToolName, toolNameOf } from './mcp-tool-names.js';

/** The most assistants one list shows, as `/v1/models` does. */
const LISTED_ASSISTANTS_MAXIMUM = 1_000;
const SERVER_INFO = { name: 'merino', version: '0.1.0' };
const SERVER_STOPPING_TEXT = 'The server is stopping and ended this call; call again, another server will answer.';

export interface McpServiceDependencies {
  db: Kysely<Database>;
  completions: CompletionService;
  rateLimiter: RateLimiter;
  limits: McpInputLimits;
  sessionLimits: McpSessionLimits;
  /** Aborts when a stopping server ends what still runs: calls in flight then end with a tool error. */
  serverStopping: AbortSignal;
}

/** What a caller's lists look like now, as digests: a change means the client should list again. */
export interface McpListFingerprints {
  tools: string;
  prompts: string;
}

function digestOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/** What a tool call needs besides the caller: its JSON-RPC id, the progress token, and how to notify. */
interface ToolCallExchange {
  requestId: string | number;
  progressToken: string | number | undefined;
  signal: AbortSignal;
  notify: (progress: number, message: string) => Promise<void>;
}

/** The key a caller's running calls are filed under: one credential never reaches another's. */
export function credentialKeyOf(context: CallContext): string {
  return `${context.identity.credential}:${context.identity.credentialId}`;
}

/** The protocol's "invalid params" error, which the SDK answers the request with. */
async function invalidParameters(message: string): Promise<Error> {
  const { McpError, ErrorCode } = await mcpServerSdk();
  return new McpError(ErrorCode.InvalidParams, message);
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** An assistant's prompt as LAMB offers it: the system prompt, then the template with the learner's words in it. */
function promptText(record: AssistantRecord, userInput: string): string {
  const template = record.prompt_template.trim() === '' ? '{user_input}' : record.prompt_template;
  const filled = template.replaceAll('{user_input}', userInput);
  return record.system_prompt.trim() === '' ? filled : `${record.system_prompt}\n\n${filled}`;
}

export class McpService {
  readonly cancellations = new McpCancellations();
  /** The optional sessions, kept in the store: what a GET stream or a DELETE needs. */
  readonly sessions: McpSessions;
  private readonly validateInput: ValidatorOnFirstUse;

  constructor(private readonly dependencies: McpServiceDependencies) {
    this.sessions = new McpSessions(dependencies.db, dependencies.sessionLimits);
    this.validateInput = validatorOnFirstUse(() => createAjv().compile(toolInputSchema(dependencies.limits)));
  }

  /** A fresh server for one request of this caller (the HTTP edge serves MCP statelessly). */
  async serverFor(context: CallContext): Promise<McpServer> {
    const {
      McpServer,
      ListToolsRequestSchema,
      ListPromptsRequestSchema,
      GetPromptRequestSchema,
      CompleteRequestSchema,
      CallToolRequestSchema,
    } = await mcpServerSdk();
    const mcpServer = new McpServer(SERVER_INFO, {
      // listChanged: a session's notification stream (GET /mcp) says when the caller's lists change.
      // logging: the SDK answers logging/setLevel; Merino sends no log messages, so any level holds.
      // completions: prompt arguments are free text, so there is never a suggestion to offer.
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} },
      instructions: 'Each tool is a Merino assistant: ask it a question, get its answer and the sources it used.',
    });
    // The tools and prompts differ per caller and are checked at call time, so the protocol's own
    // handlers are set here rather than through registerTool's fixed, process-wide list.
    const server = mcpServer.server;
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.listTools(context) }));
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await this.listPrompts(context) }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) =>
      this.getPrompt(context, request.params.name, request.params.arguments?.user_input ?? ''),
    );
    server.setRequestHandler(CompleteRequestSchema, () => ({ completion: { values: [], hasMore: false } }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const progressToken = request.params._meta?.progressToken;
      return this.callTool(context, request.params.name, request.params.arguments, {
        requestId: extra.requestId,
        progressToken,
        signal: extra.signal,
        notify: async (progress, message) => {
          if (progressToken === undefined) return;
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } });
        },
      });
    });
    return mcpServer;
  }

  private async visibleAssistants(context: CallContext): Promise<AssistantRecord[]> {
    const page = await listAssistants(this.dependencies.db, assistantListScope(context.identity), context.identity.userId, {
      limit: LISTED_ASSISTANTS_MAXIMUM,
      offset: 0,
      search: undefined,
      type: undefined,
    });
    return page.items;
  }

  async listTools(context: CallContext): Promise<Tool[]> {
    return this.toolsOf(context, await this.visibleAssistants(context));
  }

  private toolsOf(context: CallContext, records: AssistantRecord[]): Tool[] {
    const inputSchema = toolInputSchema(this.dependencies.limits);
    return records
      .filter((record) => decideAssistant(context.identity, assistantFacts(record), 'chat').allowed)
      .map((record) => ({
        name: toolNameOf(record.id, record.name),
        title: record.name,
        description: record.description.trim() === '' ? `Ask the assistant "${record.name}".` : record.description,
        inputSchema: inputSchema as unknown as Tool['inputSchema'],
        outputSchema: toolOutputSchema as unknown as Tool['outputSchema'],
        annotations: { readOnlyHint: true, openWorldHint: false },
      }));
  }

  /** Only assistants whose configuration the caller may read: a learner of a published one never gets its prompt. */
  async listPrompts(context: CallContext): Promise<Prompt[]> {
    return this.promptsOf(context, await this.visibleAssistants(context));
  }

  private promptsOf(context: CallContext, records: AssistantRecord[]): Prompt[] {
    return records
      .filter((record) => decideAssistant(context.identity, assistantFacts(record), 'view_configuration').allowed)
      .map((record) => ({
        name: toolNameOf(record.id, record.name),
        title: record.name,
        description: `The system prompt and prompt template of "${record.name}", with your words as {user_input}.`,
        arguments: [{ name: 'user_input', description: "The learner's words the template is filled with.", required: false }],
      }));
  }

  /** Digests of what tools/list and prompts/list would answer the caller now, from one read of the store. */
  async listFingerprints(context: CallContext): Promise<McpListFingerprints> {
    const records = await this.visibleAssistants(context);
    return { tools: digestOf(this.toolsOf(context, records)), prompts: digestOf(this.promptsOf(context, records)) };
  }

  async getPrompt(context: CallContext, name: string, userInput: string): Promise<GetPromptResult> {
    const id = assistantIdOfToolName(name);
    const record = id === undefined ? undefined : await findAssistant(this.dependencies.db, id, context.identity.userId);
    if (record === undefined || !decideAssistant(context.identity, assistantFacts(record), 'view_configuration').allowed)
      throw await invalidParameters(`No prompt named "${name.slice(0, 80)}" is available to you.`);
    return {
      description: record.name,
      messages: [{ role: 'user', content: { type: 'text', text: promptText(record, userInput) } }],
    };
  }

  /** The assistant a tool name names, if the caller may chat with it now; the same check as /v1/chat/completions. */
  private async assistantForCall(context: CallContext, name: string): Promise<AssistantRecord> {
    const id = assistantIdOfToolName(name);
    try {
      if (id === undefined) throw new Error('not an assistant tool');
      return await this.dependencies.completions.resolveModel(context, `${MODEL_ID_PREFIX}${id}`);
    } catch {
      throw await invalidParameters(`No tool named "${name.slice(0, 80)}" is available to you.`);
    }
  }

  private checkedInput(argumentsGiven: unknown): McpToolInput | string {
    if (this.validateInput(argumentsGiven ?? {})) return argumentsGiven as McpToolInput;
    const problems = (this.validateInput.errors ?? []).slice(0, 5).map((error) => describeAjvError(error, 'arguments'));
    return `The arguments are not valid: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}.`;
  }

  async callTool(context: CallContext, name: string, argumentsGiven: unknown, exchange: ToolCallExchange): Promise<CallToolResult> {
    const record = await this.assistantForCall(context, name);
    const input = this.checkedInput(argumentsGiven);
    if (typeof input === 'string') return toolError(input);
    const stopped = new AbortController();
    const onAbort = (): void => stopped.abort(exchange.signal.reason);
    exchange.signal.addEventListener('abort', onAbort, { once: true });
    const serverStopping = this.dependencies.serverStopping;
    const onServerStopping = (): void => stopped.abort(serverStopping.reason);
    serverStopping.addEventListener('abort', onServerStopping, { once: true });
    const forget = this.cancellations.register(credentialKeyOf(context), exchange.requestId, stopped);
    try {
      await this.dependencies.rateLimiter.admitChatRequest(context.identity);
      return await this.runAssistant(context, record, input, { ...exchange, signal: stopped.signal });
    } catch (error) {
      if (serverStopping.aborted) return toolError(SERVER_STOPPING_TEXT);
      if (isAppError(error) && error.status < 500) return toolError(error.message);
      if (stopped.signal.aborted) return toolError('The call was cancelled.');
      return toolError(isAppError(error) ? error.message : 'The assistant could not answer; try again later.');
    } finally {
      forget();
      exchange.signal.removeEventListener('abort', onAbort);
      serverStopping.removeEventListener('abort', onServerStopping);
    }
  }

  private async runAssistant(
    context: CallContext,
    record: AssistantRecord,
    input: McpToolInput,
    exchange: ToolCallExchange,
  ): Promise<CallToolResult> {
    const messages = [...(input.conversation ?? []), { role: 'user' as const, content: input.question }];
    const run = await this.dependencies.completions.start({
      context,
      record,
      request: { messages, parameters: {}, wholeAnswer: true },
      signal: exchange.signal,
    });
    let text = '';
    const sources: Source[] = [];
    let steps = 0;
    for await (const event of run.events) {
      if (exchange.signal.aborted) break;
      if (event.type === 'text-delta') text += event.text;
      else if (event.type === 'sources') sources.push(...listedSources(event.sources));
      else if (event.type === 'status') {
        steps += 1;
        await exchange.notify(
          steps,
          event.status.display_name ? `${event.status.display_name}: ${event.status.message}` : event.status.message,
        );
      }
    }
    if (this.dependencies.serverStopping.aborted) return toolError(SERVER_STOPPING_TEXT);
    if (exchange.signal.aborted) return toolError('The call was cancelled.');
    return { content: [{ type: 'text', text }], structuredContent: { sources } };
  }
}
