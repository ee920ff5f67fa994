/**
 * The OpenAI-compatible completion API's shapes, as JSON Schemas: the bodies of
 * `POST /v1/chat/completions` and LAMB's `POST /lamb/v1/completions` (unknown OpenAI parameters
 * accepted), the non-streamed answer as openai-wire.ts writes it, and `GET /v1/models`.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { sourceSchema } from '../validation/shape-fragments.js';

/** Longest conversation accepted in one request; the body size limit bounds it too. */
const MESSAGES_MAXIMUM = 1_000;
const CONTENT_PARTS_MAXIMUM = 100;

const messageSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'user', 'assistant', 'tool', 'developer'] },
    content: {
      anyOf: [
        { type: 'string' },
        { type: 'null' },
        {
          type: 'array',
          maxItems: CONTENT_PARTS_MAXIMUM,
          items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } } },
        },
      ],
    },
    name: { type: 'string', maxLength: 256 },
    tool_call_id: { type: 'string', maxLength: 256 },
    tool_calls: { type: 'array' },
  },
} as const;

/**
 * LAMB's completion body: the assistant is named in the query, so `model` is optional.
 * Unknown OpenAI parameters are accepted and ignored: clients send many, and rejecting them would break them.
 */
export const lambCompletionBodySchema = {
  type: 'object',
  required: ['messages'],
  additionalProperties: true,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 300 },
    messages: { type: 'array', minItems: 1, maxItems: MESSAGES_MAXIMUM, items: messageSchema },
    stream: { type: 'boolean' },
    stream_options: {
      type: ['object', 'null'],
      properties: { include_usage: { type: 'boolean' }, status_as_content: { type: 'boolean' } },
    },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    max_tokens: { type: 'integer', minimum: 1 },
    max_completion_tokens: { type: 'integer', minimum: 1 },
    stop: { anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }, { type: 'null' }] },
    seed: { type: 'integer' },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] } },
    },
    user: { type: 'string', maxLength: 256 },
    n: { type: 'integer', minimum: 1, maximum: 1 },
  },
} as const;

/** OpenAI's chat completion body: the same, with `model` naming the assistant. */
export const chatCompletionBodySchema = { ...lambCompletionBodySchema, required: ['model', 'messages'] } as const;

/** What either body holds once validated. */
export type CompletionBody = FromSchema<typeof lambCompletionBodySchema>;

/** The usage of a run; connectors may report more counts than these three. */
const usageSchema = {
  type: 'object',
  properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
  additionalProperties: true,
} as const;

/** A non-streamed answer, as openai-wire.ts writes it. */
export const completionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['chat.completion'] },
    created: { type: 'integer' },
    model: { type: 'string', description: 'the model id exactly as sent' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            properties: {
              role: { type: 'string', enum: ['assistant'] },
              content: { type: 'string' },
              reasoning_content: { type: 'string', description: "the model's reasoning, when it gave any" },
            },
            required: ['role', 'content'],
          },
          logprobs: { type: 'null' },
          finish_reason: { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter'] },
        },
        required: ['index', 'message', 'logprobs', 'finish_reason'],
      },
    },
    usage: usageSchema,
    sources: { type: 'array', items: sourceSchema },
    trace_id: { type: 'string', description: 'the id of the trace of this request (verbose assistants only)' },
  },
  required: ['id', 'object', 'created', 'model', 'choices', 'usage', 'sources'],
} as const;

export const modelListSchema = {
  type: 'object',
  description: 'The assistants you may chat with, as OpenAI models',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'lamb_assistant.<id>' },
          object: { type: 'string', enum: ['model'] },
          created: { type: 'integer' },
          owned_by: { type: 'string', description: "the assistant owner's display name" },
          name: { type: 'string', description: "the assistant's name, which Open WebUI lists" },
          description: { type: 'string', description: "the assistant's description; empty when it has none" },
        },
        required: ['id', 'object', 'created', 'owned_by', 'name', 'description'],
      },
    },
  },
  required: ['object', 'data'],
} as const;
