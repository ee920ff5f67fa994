/**
 * rubric_rag — puts an evaluation document built from one rubric into `{rubric}` (into `{context}`
 * for classic assistants, which name it in `rag_processor` and keep `rubric_id` and
 * `rubric_format` in their metadata, as LAMB did). The document tells the model how to score:
 * the weighted formula, the criteria and their levels, the expected output. The rubric is read
 * through the owner's RubricReader, so an assistant only reads rubrics its owner may read.
 */
import { defineTool } from '../pipeline/plugin-api.js';

export default defineTool({
  name: 'rubric_rag',
  aliases: ['rubric'],
  displayName: 'Assessment rubric',
  description:
    'Inserts an evaluation document built from one rubric (criteria, levels, weighted scoring, expected output) into the prompt.',
  category: 'rubric',
  version: '1.0',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['rubric_id'],
    properties: {
      // A string; LAMB's old integer ids are accepted (the metadata normalizer stores them as strings).
      rubric_id: {
        type: ['string', 'integer'],
        minLength: 1,
        maxLength: 200,
        pattern: '^[\\p{L}\\p{N}._:~-]+$',
        minimum: 0,
        description: 'The rubricId the rubrics API answered with',
      },
      format: {
        type: 'string',
        enum: ['markdown', 'json'],
        default: 'markdown',
        description: 'How the evaluation document is written for the model',
      },
    },
  } as const,
  placeholder: 'rubric',
  status: (config) => `generating rubric ${config.rubric_id}`,
  traceInput: (config) => ({ rubric_id: String(config.rubric_id), format: config.format }),
  async provide(context, config) {
    const rubricId = String(config.rubric_id);
    const rubric = await context.rubrics.evaluation(rubricId, config.format);
    return {
      content: rubric.document,
      // An instruction, not where the answer came from: a classic prompt still lists it, readers never see it.
      sources: [
        { title: rubric.title, url: `rubric:${rubric.rubricId}`, rubric_id: rubric.rubricId, format: config.format, instruction: true },
      ],
      metadata: { criteria: rubric.criterionCount },
    };
  },
});
