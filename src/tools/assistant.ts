/**
 * assistant — another assistant offered to the model as a function (seed 002): the model sends a
 * query, the target's whole pipeline answers it, and that answer is the result. Which assistant,
 * and whether the orchestrator's owner may use it, is decided by the configuration and checked
 * again on every call (see src/completions/assistant-tool-runner.ts); the model can only name
 * the functions it was offered.
 */
import {
  assistantTargetConfigSchema,
  assistantTargetFunctionName,
  defineTool,
  type AssistantTargetConfig,
} from '../pipeline/plugin-api.js';

const QUERY_CHARACTERS_MAXIMUM = 8_000;

const configSchema = assistantTargetConfigSchema;

function functionNameOf(config: AssistantTargetConfig): string {
  return assistantTargetFunctionName(config, 'call_assistant');
}

export default defineTool({
  name: 'assistant',
  displayName: 'Assistant',
  description: 'Lets the model ask another assistant (a math expert, a writing coach) and use its answer.',
  category: 'assistants',
  version: '1.0',
  configSchema,
  status: (config) => `calling assistant ${functionNameOf(config)}`,
  traceInput: (config) => ({ assistant_id: config.assistant_id }),
  function: {
    // Checking here is the soft filter: a target the owner may not use is not offered at all.
    async describe(config, context) {
      const target = await context.assistants.check(config.assistant_id);
      const description =
        config.description ??
        (target.description.trim() === '' ? `Asks the assistant "${target.name}" and returns its answer.` : target.description);
      return { name: functionNameOf(config), description };
    },
    functionName: functionNameOf,
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: QUERY_CHARACTERS_MAXIMUM,
          description: 'The question or task for this assistant, complete in itself.',
        },
      },
    } as const,
    async call(argumentsFromModel, context, config) {
      const answer = await context.assistants.run(config.assistant_id, argumentsFromModel.query, {
        signal: context.signal,
        ...(context.callStatus !== undefined && { status: context.callStatus }),
      });
      return { content: answer.content, sources: answer.sources };
    },
  },
});
