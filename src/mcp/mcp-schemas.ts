/**
 * The JSON Schemas MCP clients see for an assistant's tool: the input `{question, conversation?}`,
 * bounded by named settings, and the structured output (the sources). Declared once here; the
 * tool call checks its arguments against the same input schema it lists.
 */
import { sourceSchema } from '../validation/shape-fragments.js';

export interface McpInputLimits {
  questionCharactersMaximum: number;
  conversationMessagesMaximum: number;
}

/** What a tool call brings, once checked against toolInputSchema. */
export interface McpToolInput {
  question: string;
  conversation?: Array<{ role: 'user' | 'assistant'; content: string }>;
}

export function toolInputSchema(limits: McpInputLimits) {
  return {
    type: 'object',
    required: ['question'],
    additionalProperties: false,
    properties: {
      question: {
        type: 'string',
        minLength: 1,
        maxLength: limits.questionCharactersMaximum,
        description: 'What to ask the assistant.',
      },
      conversation: {
        type: 'array',
        maxItems: limits.conversationMessagesMaximum,
        description: 'Earlier turns of this conversation, oldest first, so the assistant can follow on.',
        items: {
          type: 'object',
          required: ['role', 'content'],
          additionalProperties: false,
          properties: {
            role: { type: 'string', enum: ['user', 'assistant'] },
            content: { type: 'string', maxLength: limits.questionCharactersMaximum },
          },
        },
      },
    },
  } as const;
}

export const toolOutputSchema = {
  type: 'object',
  required: ['sources'],
  properties: {
    sources: {
      type: 'array',
      items: sourceSchema,
      description: 'the passages and tools the answer drew on, numbered as its [n] citations',
    },
  },
} as const;
