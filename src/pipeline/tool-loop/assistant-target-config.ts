/**
 * The configuration the tools that call another assistant share (`assistant`, `image_gen`): which
 * assistant, and optionally the function's name and description as the model sees them.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { sanitizeFunctionName } from './function-tools.js';

export const assistantTargetConfigSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['assistant_id'],
  properties: {
    assistant_id: { type: 'integer', minimum: 1 },
    name: { type: 'string', maxLength: 64 },
    description: { type: 'string', maxLength: 1_000 },
  },
} as const;

export type AssistantTargetConfig = FromSchema<typeof assistantTargetConfigSchema>;

/** The configured name made safe as a function name, or `{prefix}_{assistant_id}` when none is set. */
export function assistantTargetFunctionName(config: AssistantTargetConfig, prefix: string): string {
  return config.name !== undefined && config.name.trim() !== '' ? sanitizeFunctionName(config.name) : `${prefix}_${config.assistant_id}`;
}
