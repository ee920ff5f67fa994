/**
 * What the pipeline core may ask of the rest of Merino. The core imports nothing from HTTP or
 * SQL: services build these ports for each request, already bound to the assistant owner's
 * identity, so a tool can only reach what that owner may reach.
 */
import { type OutboundFetch } from '../upstream/outbound-fetch.js';
import type { Source, StatusEvent, Usage } from '../conversation/events.js';
import type { ChatMessage } from '../conversation/messages.js';

export interface FileText {
  text: string;
  /** True when the file held more than the characters asked for. */
  truncated: boolean;
}

/** Reads the text of the files the assistant owner may read, by the `file_path` the files API gave them. */
export interface FileReader {
  /** Rejects with an AppError (not_found, invalid_parameter) for a missing, foreign or unsafe path. */
  readText(filePath: string, charactersMaximum: number): Promise<FileText>;
}

export interface KnowledgeHit {
  text: string;
  /** In [0, 1], whatever the retrieval mode. */
  similarity: number;
  metadata: Record<string, unknown>;
}

/** One document of a knowledge base, as the model may see it: no contents, no storage details. */
export interface DocumentSummary {
  title: string;
  type: string;
  pages: number | null;
  chunks: number;
  /** The size of the document as uploaded. */
  bytes: number;
  status: string;
  added_at: string;
}

/** One search of one knowledge base: the passages most like `queryText`, at most `topK`, none below `threshold`. */
export interface KnowledgeQuery {
  collectionId: string;
  queryText: string;
  topK: number;
  /** In [0, 1], compared with each hit's similarity. */
  threshold: number;
  signal?: AbortSignal;
}

/** One walk of the entity graphs of some knowledge bases (docs/graph-search.md), within its bounds. */
export interface GraphQuery {
  collectionIds: readonly string[];
  question: string;
  /** Relation steps from the entities the question names (0: those entities' own passages only). */
  depth: number;
  /** Neighbours followed from one entity at each step; also the most entities taken from the question. */
  fanOut: number;
  passages: number;
}

/** An entity of a walk, by its display name and type. */
export interface GraphEntity {
  name: string;
  type: string;
}

/** One relation a walk followed, `depth` steps from the question's entities. */
export interface GraphStep {
  from: string;
  label: string;
  to: string;
  depth: number;
}

export interface GraphAnswer {
  /** The entities the question names, found in the graph: the walk's starting points. */
  found: GraphEntity[];
  steps: GraphStep[];
  /** Entities reached, starting points included. */
  reached: number;
  /** The passages that mention the entities reached, the most of them first. */
  hits: KnowledgeHit[];
}

/** Searches the knowledge bases the assistant owner may read, by collection id. */
export interface KnowledgeSearch {
  /** Rejects with an AppError (not_found) for a collection the owner may not read or that does not exist. */
  query(request: KnowledgeQuery): Promise<KnowledgeHit[]>;
  /** Walks the collections' entity graphs; same permission as `query`. */
  graph(request: GraphQuery): Promise<GraphAnswer>;
  /** The collection's documents, newest first; same permission as `query`. */
  listDocuments(collectionId: string): Promise<DocumentSummary[]>;
}

/** A rubric as the rubric tool puts it into a prompt: its evaluation document, written in the asked format. */
export interface RubricEvaluation {
  rubricId: string;
  title: string;
  criterionCount: number;
  /** The instructions, criteria, levels and weighted formula, in Markdown or JSON. */
  document: string;
}

/** Reads the rubrics the assistant owner may read (their own, and their organization's shared ones), by rubricId. */
export interface RubricReader {
  /** Rejects with an AppError (not_found) for a rubric that does not exist, was deleted or is not the owner's to read. */
  evaluation(rubricId: string, format: 'markdown' | 'json'): Promise<RubricEvaluation>;
}

/** Turns the conversation into one standalone search query with the organization's small fast model. */
export interface QueryRewriter {
  /** Undefined when no small fast model is configured or it failed: the caller then uses the last message. */
  rewrite(messages: readonly ChatMessage[], signal: AbortSignal): Promise<string | undefined>;
}

/**
 * Who is chatting, as the authenticated request says: never what the model says. Moodle tools
 * and moodle_augment act as this person.
 */
export interface Requester {
  userId: number;
  email: string;
  /** A Moodle user id the request carries from a trusted source (an LTI launch), when there is one. */
  moodleUserId?: string;
}

/** External services the built-in function tools reach, resolved for the assistant owner's organization. */
export interface Integrations {
  weather: { geocodingUrl: string; forecastUrl: string; timeoutMilliseconds: number; responseBytesMaximum: number };
  /** Absent when neither the organization nor the server configures Moodle: Moodle tools are then not offered. */
  moodle?: { apiUrl: string; token: string; timeoutMilliseconds: number; responseBytesMaximum: number; fetch: OutboundFetch };
  /** Absent when the organization sets no web search provider: the `web_search` tool is then not offered. */
  webSearch?: WebSearchIntegration;
  /** Absent when the organization names no small fast model, so no entity graph is built: `graph_search` is then not offered. */
  entityGraph?: { depthMaximum: number; fanOutMaximum: number; passagesMaximum: number };
}

/** The organization's web search provider, its key decrypted, and the bounds of one request's searching and page reading. */
export interface WebSearchIntegration {
  provider: 'searxng' | 'brave' | 'tavily';
  /** The provider's base URL: the organization's SearXNG instance, or Brave's and Tavily's own unless it sets another. */
  url: string;
  apiKey?: string;
  timeoutMilliseconds: number;
  responseBytesMaximum: number;
  /** The outbound guard's fetch for the provider. */
  fetch: OutboundFetch;
  pages: {
    /** The outbound guard's fetch for the pages results link to: public addresses only. */
    fetch: OutboundFetch;
    bytesMaximum: number;
    timeoutMilliseconds: number;
    redirectsMaximum: number;
    textCharactersMaximum: number;
  };
  /** What is left of this request's WEB_SEARCH_SEARCHES_MAX and WEB_SEARCH_PAGES_MAX: made for each run, spent by each call. */
  budget: { searches: number; pages: number };
}

/** An assistant another assistant may call as a tool, as its owner sees it. */
export interface AssistantTarget {
  id: number;
  name: string;
  description: string;
  /** Whether it generates images (the `banana_img` connector): what `image_gen` may call. */
  generatesImages: boolean;
}

/** Status lines of a running call, so work nested under it shows as its children. */
export interface CallStatus {
  /** The id of the call's own status event: nested events carry it as `parent`. */
  id: string;
  emit(status: StatusEvent): void;
}

/**
 * Assistants used as tools (orchestrators), checked as the orchestrator's owner every time:
 * the target exists, is not deleted, the owner may use it, and it is not an orchestrator itself.
 */
export interface AssistantRunner {
  /** The target, or an AppError saying why it may not be used (also written to the audit log). */
  check(targetId: number): Promise<AssistantTarget>;
  /** Runs the target's whole pipeline, not streamed, with `query` as the user message. */
  run(
    targetId: number,
    query: string,
    options: { signal: AbortSignal; status?: CallStatus },
  ): Promise<{ content: string; sources: Source[] }>;
}

/** One tool an MCP server lists: its name, description and input schema as the server gave them. */
export interface McpToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What an MCP tool answered: its text content, and whether the server marked it an error (`isError`). */
export interface McpToolAnswer {
  text: string;
  isError: boolean;
}

/**
 * The MCP servers of the assistant owner's organization (docs/mcp-servers-as-tools.md), reached
 * through the outbound guard, with header templates filled for the person chatting. A server of
 * another organization is not found.
 */
export interface McpServers {
  /** The server's name and tools (cached for MCP_TOOL_LIST_CACHE_MS); rejects with an AppError naming why. */
  tools(serverId: number, signal: AbortSignal): Promise<{ name: string; tools: McpToolListing[] }>;
  /** Calls one tool; an unreachable or refused server rejects with an AppError, an `isError` answer resolves with `isError`. */
  call(serverId: number, toolName: string, argumentsObject: Record<string, unknown>, signal: AbortSignal): Promise<McpToolAnswer>;
}

/** One call a tool makes to a model beside the run's own: the messages, and how much it may write. */
export interface TextModelRequest {
  messages: ChatMessage[];
  maxTokens: number;
  signal: AbortSignal;
}

/** What such a call answered, and what the provider says it used (estimated when it says nothing). */
export interface TextModelAnswer {
  text: string;
  usage: Usage;
}

/** A model a tool may ask for text, not streamed; each call is counted as a usage row of its own for the request. */
export interface TextModel {
  /** `connector/model`, safe for status lines. */
  name: string;
  /** Rejects with an AppError when the provider fails or the signal aborts. */
  complete(request: TextModelRequest): Promise<TextModelAnswer>;
}

/** The bounds of one deep_analysis call, from the server's settings (docs/deep-analysis.md). */
export interface DeepAnalysisBounds {
  /** Passages gathered when the tool's config names no number, and the most it may name. */
  passages: number;
  passagesMaximum: number;
  /** Passages summarised in one call of the small fast model. */
  batchPassages: number;
  batchesMaximum: number;
  /** Batches summarised at once. */
  parallelBatches: number;
  /** Prompt and answer tokens of every model call of one analysis together. */
  tokensMaximum: number;
  milliseconds: number;
  summaryTokensMaximum: number;
  answerTokensMaximum: number;
}

/** The models a tool may call beside the run's own, resolved for the assistant's organization. */
export interface ToolModels {
  /** The organization's small fast model; undefined when it names none (or names a connector that is not installed). */
  smallFast(): Promise<TextModel | undefined>;
  /** The assistant's own connector and model. */
  assistant: TextModel;
  deepAnalysis: DeepAnalysisBounds;
}

/** An image a model generated, as its provider sent it. */
export interface GeneratedImage {
  bytes: Uint8Array;
  /** `image/png`, `image/jpeg` or `image/webp`. */
  mimeType: string;
}

/**
 * Keeps generated images as the requester's files (docs/image-generation.md), with the bounds an
 * image connector keeps to. Bound to the person chatting and, in a web chat, to the chat, so the
 * chat's deletion deletes its images.
 */
export interface ImageStore {
  /** The most bytes one generated image may have (IMAGE_MAX_BYTES): a larger one is refused. */
  bytesMaximum: number;
  /** How long one image may take to generate (IMAGE_TIMEOUT_MS). */
  timeoutMilliseconds: number;
  /** Stores the image; resolves with the same-origin URL Merino serves it at to its owner only. */
  save(image: GeneratedImage): Promise<{ url: string }>;
}
