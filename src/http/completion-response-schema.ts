/**
 * The answer of every route that runs a completion (`/v1/chat/completions`, LAMB's completions,
 * a chat's messages and regenerations): one chat.completion as JSON, or server-sent events when
 * the client asked for a stream. Shared by the route files, so it lives here, not in one of them.
 */
import { completionSchema } from '../completions/completion-schemas.js';

export const completionResponse = {
  description: 'The answer: one chat.completion, or with `stream: true` a stream of chat.completion.chunk events ending in `data: [DONE]`',
  content: {
    'application/json': { schema: completionSchema },
    'text/event-stream': { schema: { type: 'string', description: 'server-sent events, one `data:` line of JSON each' } },
  },
} as const;
