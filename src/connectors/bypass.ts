/**
 * bypass — a deterministic connector for debugging assistants without a model: `debug-bypass`
 * answers with the exact messages and parameters the model would get, `simple-bypass` with the
 * last message, `full-conversation-bypass` with the whole conversation.
 */
import { AppError } from '../errors/app-error.js';
import { defineConnector, estimateTokens, messageText, type ConnectorRequest } from '../pipeline/plugin-api.js';

const MODELS = ['simple-bypass', 'debug-bypass', 'full-conversation-bypass'] as const;
/** Answers stream in pieces of this many characters, like a model's deltas. */
const PIECE_LENGTH = 64;

function answerFor(request: ConnectorRequest): string {
  switch (request.model || 'simple-bypass') {
    case 'debug-bypass':
      return JSON.stringify({ model: request.model, messages: request.messages, parameters: request.parameters }, null, 2);
    case 'simple-bypass':
      return messageText(request.messages.at(-1)?.content ?? '');
    case 'full-conversation-bypass':
      return request.messages.map((message) => `${message.role}: ${messageText(message.content)}`).join('\n\n');
    default:
      throw new AppError(
        'assistant_misconfigured',
        `The bypass connector has no model "${request.model}"; use one of ${MODELS.join(', ')}.`,
      );
  }
}

export default defineConnector({
  name: 'bypass',
  description: 'Answers without a model, for debugging: the prompt the model would get, the last message, or the conversation.',
  models: () => MODELS,
  testing: true,
  async *complete(request) {
    const answer = answerFor(request);
    for (let start = 0; start < answer.length; start += PIECE_LENGTH) {
      if (request.signal.aborted) return;
      yield { type: 'text-delta', text: answer.slice(start, start + PIECE_LENGTH) };
    }
    const prompt = estimateTokens(request.messages.map((message) => messageText(message.content)).join(''));
    const completion = estimateTokens(answer);
    yield { type: 'usage', usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
    yield { type: 'finish', finishReason: 'stop' };
  },
});
