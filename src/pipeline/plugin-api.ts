/**
 * The plugin API: everything a tool, a prompt processor, a connector or an integration client may
 * use of the pipeline core, in one file. Plugins import this file and nothing else from the core
 * (the layer rule `plugins-see-the-core-through-its-plugin-api` checks it), so the core can move
 * its insides around without touching a plugin, and what a plugin may rely on is written down here.
 * Besides this file, plugins may import src/errors/, src/validation/ and src/integrations/.
 */

// The three plugin contracts.
export {
  defineTool,
  type FunctionDescription,
  type FunctionToolDefinition,
  type SchemaValue,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput,
  type ToolSchema,
} from './plugin-contract/tool-definition.js';
export { definePromptProcessor, type PromptInput, type PromptProcessorDefinition } from './plugin-contract/prompt-processor-definition.js';
export {
  defineConnector,
  type ConnectorDefinition,
  type ConnectorEvent,
  type ConnectorRequest,
  type FunctionSpecification,
  type GenerationParameters,
  type ModelToolCall,
  type ProviderSettings,
} from './plugin-contract/connector-definition.js';

// The one error catalogue: a plugin outside src/ (PLUGINS_DIR) reaches it here, as `merino/plugin-api`.
export { AppError, type AppErrorOptions, type ErrorCode } from '../errors/app-error.js';

// What a plugin reads and writes: the assistant, messages, sources and events.
export type { AssistantSnapshot } from './assistant-metadata/assistant-snapshot.js';
export { messageJson } from './conversation/message-json.js';
export { isTextPart, lastUserText, messageText, type ChatMessage, type ContentPart, type TextPart } from './conversation/messages.js';
export type { FinishReason, Source, StatusEvent, Usage } from './conversation/events.js';

// The ports a tool reaches the rest of Merino through, bound to the assistant owner's identity.
export type {
  AssistantRunner,
  AssistantTarget,
  CallStatus,
  DocumentSummary,
  FileReader,
  FileText,
  GeneratedImage,
  GraphAnswer,
  GraphEntity,
  GraphQuery,
  GraphStep,
  ImageStore,
  Integrations,
  KnowledgeHit,
  KnowledgeQuery,
  KnowledgeSearch,
  QueryRewriter,
  Requester,
  RubricEvaluation,
  RubricReader,
  DeepAnalysisBounds,
  TextModel,
  TextModelAnswer,
  TextModelRequest,
  ToolModels,
} from './plugin-contract/ports.js';

// Helpers the built-in plugins share.
export {
  collectionsSchema,
  searchCollections,
  sourceOfHit,
  thresholdSchema,
  type CollectionsSearch,
} from './plugin-contract/knowledge-sources.js';
export { CONTEXT_PLACEHOLDER, renderClassicPrompt, renderMessages, type TemplateInput } from './templates/template-rendering.js';
export { sanitizeFunctionName } from './tool-loop/function-tools.js';
export {
  assistantTargetConfigSchema,
  assistantTargetFunctionName,
  type AssistantTargetConfig,
} from './tool-loop/assistant-target-config.js';
export { startDeadline, streamWithinDeadline, type Deadline } from './bounds/deadline.js';
export { outboundRefusalIn, serverFetch, type OutboundFetch } from './upstream/outbound-fetch.js';
export { oversizedAnswerIn, type OutboundPost, type OutboundPostRequest, type OutboundPostResponse } from './upstream/outbound-post.js';
export { ToolCallAssembler, type ToolCallDelta } from './plugin-contract/tool-call-assembly.js';
export { idsInList, ModelListError, requestModelList, type ModelListFailure } from './plugin-contract/model-list-request.js';
export {
  answerPastBoundError,
  estimateTokens,
  oversizedAnswerError,
  unreachableProviderError,
  upstreamAbortError,
  upstreamEndedEarlyError,
  upstreamStatusError,
  type UpstreamCall,
} from './upstream/upstream-errors.js';
