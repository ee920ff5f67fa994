/**
 * The connector plugin contract: send messages to a model and stream back what it says. Each file
 * in src/connectors/ default-exports one `defineConnector({...})`. Connectors always stream; the
 * edge gathers the events for clients that asked for one JSON answer.
 */
import type { OutboundFetch } from '../upstream/outbound-fetch.js';
import type { OutboundPost } from '../upstream/outbound-post.js';
import type { FinishReason, Usage } from '../conversation/events.js';
import type { ChatMessage } from '../conversation/messages.js';
import type { ImageStore } from './ports.js';

/** The standard OpenAI generation parameters a client may set; connectors pass on those their backend knows. */
export interface GenerationParameters {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string | string[];
  seed?: number;
  response_format?: Record<string, unknown>;
  user?: string;
}

/**
 * Where and how to reach the provider, resolved from the owner's organization or the environment
 * by src/organizations/provider-resolution.ts only: the URL, the key and the fetch that reaches
 * the URL come as one, so a server key never travels to an organization's URL and an
 * organization's URL is never reached without the outbound guard.
 */
export interface ProviderSettings {
  apiKey?: string;
  baseUrl?: string;
  /** Every request to `baseUrl` goes through this: the guarded fetch for an organization's URL. */
  fetch: OutboundFetch;
  /** For `banana_img` only: which provider generates the organization's images (IMAGE_PROVIDER, or the organization's choice). */
  imageProvider?: 'openai' | 'gemini';
  /** The lean POST to `baseUrl` for calls made on every request, reaching it the same way as `fetch`. */
  post: OutboundPost;
}

/** A function the model may call, as the OpenAI tools format describes one. */
export interface FunctionSpecification {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

/** A call the model made, with its arguments as the JSON text it wrote (possibly invalid). */
export interface ModelToolCall {
  id: string;
  name: string;
  argumentsJson: string;
}

export interface ConnectorRequest {
  model: string;
  messages: ChatMessage[];
  parameters: GenerationParameters;
  /** Functions offered to the model; absent or empty, none are. */
  tools?: readonly FunctionSpecification[];
  provider: ProviderSettings;
  signal: AbortSignal;
  /** Milliseconds the upstream may take before it is abandoned with a 504. */
  timeoutMilliseconds: number;
  /**
   * The client waits for one whole answer and no functions are offered: a connector may ask its
   * provider for one JSON answer instead of a stream, which costs far less to read. It still emits
   * the same events, the text as one delta.
   */
  wholeAnswer?: boolean;
  /** Where an image connector keeps what it generates, as the requester's files; absent where images may not be kept. */
  images?: ImageStore;
}

export type ConnectorEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'usage'; usage: Usage }
  /** A whole structured call, emitted once its streamed pieces are complete (before `finish`). */
  | { type: 'tool-call'; call: ModelToolCall }
  /** The last event of every whole answer: a stream that ends without it was cut, and the run fails (502). */
  | { type: 'finish'; finishReason: FinishReason };

export interface ConnectorDefinition {
  name: string;
  description: string;
  /**
   * The models this connector's provider serves, as the provider itself lists them (the studio's
   * Model list and /lamb/v1/completions/list). A provider that gives no list throws a
   * ModelListError (src/pipeline/plugin-contract/model-list-request.ts); a fixed list is for connectors
   * without a provider only. `signal` ends the request when the list's time is up.
   */
  models(provider: ProviderSettings, signal: AbortSignal): readonly string[] | Promise<readonly string[]>;
  /**
   * A test connector answers without a model (bypass): listed only to system admins, or to every
   * creator when MODEL_LIST_TEST_CONNECTORS is on.
   */
  testing?: boolean;
  complete(request: ConnectorRequest): AsyncIterable<ConnectorEvent>;
}

export function defineConnector(definition: ConnectorDefinition): ConnectorDefinition {
  return definition;
}
