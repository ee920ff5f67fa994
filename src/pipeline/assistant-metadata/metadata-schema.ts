/**
 * The JSON Schema of assistant metadata as clients may send it, before normalisation. It accepts
 * every historical shape (LAMB classic, 001's tools list, 002's assistant tools, 003's tool-name
 * strings, LAMB's multi-tool plugin entries) and only checks types; turning those shapes into the
 * canonical form is the normalizer's job (metadata-normalizer.ts).
 */

import type { ErrorObject } from 'ajv';
import { CLIENT_SYSTEM_MESSAGE_HANDLINGS } from '../conversation/client-system-messages.js';
import { REASONING_OPENED_SETTINGS, TEXT_TOOL_CALL_FORMATS } from '../../text-tool-calls/index.js';
import { createAjv } from '../../validation/create-ajv.js';
import { validatorOnFirstUse, type ValidatorOnFirstUse } from '../../validation/validator-on-first-use.js';

/** 002's `{type: "assistant", assistant_id, name, description}`: the extra keys are typed here. */
const assistantToolFields = {
  properties: {
    assistant_id: { type: ['integer', 'string'] },
    name: { type: 'string' },
    description: { type: 'string' },
    config: {
      type: 'object',
      properties: { assistant_id: { type: ['integer', 'string'] } },
    },
  },
} as const;

/** `{type, enabled?, config?}` from 000/001; other top-level keys are allowed and end up in config. */
const typedToolSchema = {
  required: ['type'],
  properties: {
    type: { type: 'string', minLength: 1 },
    enabled: { type: 'boolean' },
    config: { type: 'object' },
  },
  if: { properties: { type: { enum: ['assistant', 'image_gen'] } }, required: ['type'] },
  then: assistantToolFields,
} as const;

/** LAMB's multi-tool branch `{plugin, placeholder?, enabled?, config?}`. */
const pluginToolSchema = {
  properties: {
    plugin: { type: 'string', minLength: 1 },
    placeholder: { type: 'string', minLength: 1 },
    enabled: { type: 'boolean' },
    config: { type: 'object' },
    // An entry naming both a plugin and a type is ambiguous, so it is refused rather than guessed.
    type: false,
  },
} as const;

/**
 * One entry of `tools`. The if/then/else chain picks exactly one shape per entry, so a failing
 * entry reports the errors of its own shape instead of the noise of every alternative.
 */
const toolEntrySchema = {
  type: ['string', 'object'],
  if: { type: 'string' },
  then: { type: 'string', minLength: 1 },
  else: {
    if: { type: 'object', required: ['plugin'] },
    then: pluginToolSchema,
    else: typedToolSchema,
  },
} as const;

export const assistantMetadataSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://merino.dev/schemas/assistant-metadata.json',
  title: 'Assistant metadata (as sent by clients)',
  type: 'object',
  additionalProperties: true,
  properties: {
    assistant_type: { type: 'string', enum: ['classic', 'multi_tool'] },
    prompt_processor: { type: 'string' },
    connector: { type: 'string' },
    llm: { type: 'string' },
    rag_processor: { type: 'string' },
    file_path: { type: 'string' },
    rubric_id: { type: ['string', 'integer'] },
    rubric_format: { type: 'string', enum: ['markdown', 'json'] },
    capabilities: {
      type: 'object',
      additionalProperties: true,
      properties: {
        vision: { type: 'boolean' },
        image_generation: { type: 'boolean' },
      },
    },
    verbose: { type: 'boolean' },
    // How calls written as text are read: every known format, natively structured calls only, or one format.
    tool_call_format: { type: 'string', enum: ['auto', 'native', ...TEXT_TOOL_CALL_FORMATS] },
    // Whether the model's chat template opens reasoning before the model writes (its output starts inside it).
    reasoning_opened: { type: 'string', enum: [...REASONING_OPENED_SETTINGS] },
    // What happens to a client's system and developer messages: dropped, or put after the teacher's system prompt.
    client_system_messages: { type: 'string', enum: [...CLIENT_SYSTEM_MESSAGE_HANDLINGS] },
    // Whether status lines go into the content when a request does not say (stream_options.status_as_content).
    status_as_content: { type: 'boolean' },
    // The tool loop's bounds for this assistant; the server caps each at its own maximum.
    tool_loop: {
      type: 'object',
      additionalProperties: false,
      properties: {
        max_iterations: { type: 'integer', minimum: 1 },
        call_timeout_ms: { type: 'integer', minimum: 1 },
        total_timeout_ms: { type: 'integer', minimum: 1 },
        max_identical_calls: { type: 'integer', minimum: 1 },
      },
    },
    _format_version: { type: 'integer' },
    tools: { type: 'array', items: toolEntrySchema },
  },
} as const;

// Strict mode stays on to catch schema typos; union types are allowed because LAMB ids really are
// sometimes integers and sometimes strings.
const ajv = createAjv();

/** The compiled validator; after a failed call its `errors` hold every problem found. */
export const validateAssistantMetadata: ValidatorOnFirstUse<Record<string, unknown>> = validatorOnFirstUse(() =>
  ajv.compile<Record<string, unknown>>(assistantMetadataSchema),
);

export type MetadataSchemaError = ErrorObject;
