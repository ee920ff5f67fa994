/**
 * simple_augment — LAMB's classic prompt processor: the system prompt, the history, and the
 * template with `{user_input}` and `{context}` (followed by its "Available Sources") filled.
 */
import { definePromptProcessor, renderClassicPrompt } from '../pipeline/plugin-api.js';

export default definePromptProcessor({
  name: 'simple_augment',
  description: 'System prompt, history, and the template with {user_input} and {context} filled (LAMB classic).',
  process: (input) => renderClassicPrompt(input),
});
