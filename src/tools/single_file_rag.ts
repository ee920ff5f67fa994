/**
 * single_file_rag — puts the text of one uploaded file into `{file}` (into `{context}` for classic
 * assistants, as LAMB did). The file is read through the owner's FileReader, so an assistant can
 * only read what its owner may read.
 */
import { defineTool } from '../pipeline/plugin-api.js';

/** More than most models' context; a teacher may lower it per assistant. */
const READ_CHARACTERS_MAXIMUM_DEFAULT = 50_000;
const READ_CHARACTERS_MAXIMUM_LARGEST = 2_000_000;

export default defineTool({
  name: 'single_file_rag',
  aliases: ['single_file'],
  displayName: 'Single file',
  description: 'Inserts the text of one uploaded file (txt, md, json, csv, html) into the prompt.',
  category: 'file',
  version: '1.0',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['file_path'],
    properties: {
      file_path: { type: 'string', minLength: 1, maxLength: 1_000, description: 'The file_path the files API answered with' },
      max_chars: { type: 'integer', minimum: 1, maximum: READ_CHARACTERS_MAXIMUM_LARGEST, default: READ_CHARACTERS_MAXIMUM_DEFAULT },
    },
  } as const,
  placeholder: 'file',
  status: (config) => `reading file ${config.file_path}`,
  traceInput: (config) => ({ file_path: config.file_path, max_chars: config.max_chars }),
  async provide(context, config) {
    const { text, truncated } = await context.files.readText(config.file_path, config.max_chars);
    return {
      content: truncated ? `${text}\n\n[… the file continues beyond ${config.max_chars} characters]` : text,
      sources: [{ title: config.file_path.split('/').pop() ?? config.file_path, url: config.file_path }],
      metadata: { truncated },
    };
  },
});
