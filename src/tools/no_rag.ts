/** no_rag — the tool that retrieves nothing; `no_tool` is its alias from seed 001. */
import { defineTool } from '../pipeline/plugin-api.js';

export default defineTool({
  name: 'no_rag',
  aliases: ['no_tool'],
  displayName: 'No retrieval',
  description: 'Adds nothing to the prompt.',
  category: 'rag',
  version: '1.0',
  configSchema: { type: 'object', additionalProperties: false, properties: {} } as const,
  placeholder: 'context',
  provide: async () => ({ content: '' }),
});
