/**
 * image_gen — an image assistant (one on the `banana_img` connector, seed 002's "image_creator")
 * offered to the model as a function: the model describes the image, the image assistant's
 * pipeline generates it and keeps it as the requester's file, and the result is the markdown image
 * the model puts in its answer (docs/image-generation.md). Like `assistant`, the target and the
 * orchestrator owner's right to use it are checked on every call (assistant-tool-runner.ts); a
 * target that does not generate images is not offered.
 */
import {
  AppError,
  assistantTargetConfigSchema,
  assistantTargetFunctionName,
  defineTool,
  type AssistantTargetConfig,
} from '../pipeline/plugin-api.js';

const PROMPT_CHARACTERS_MAXIMUM = 4_000;

const configSchema = assistantTargetConfigSchema;

function functionNameOf(config: AssistantTargetConfig): string {
  return assistantTargetFunctionName(config, 'generate_image');
}

export default defineTool({
  name: 'image_gen',
  displayName: 'Image generation',
  description: 'Lets the model ask an image assistant for a picture and show it in its answer.',
  category: 'assistants',
  version: '1.0',
  configSchema,
  status: (config) => `generating an image with ${functionNameOf(config)}`,
  traceInput: (config) => ({ assistant_id: config.assistant_id }),
  function: {
    async describe(config, context) {
      const target = await context.assistants.check(config.assistant_id);
      if (!target.generatesImages)
        throw new AppError('assistant_misconfigured', `Assistant ${target.id} does not generate images (its connector is not banana_img).`);
      const description =
        config.description ??
        `Generates an image with "${target.name}" from a description. Returns a markdown image: put it in your answer exactly as returned.`;
      return { name: functionNameOf(config), description };
    },
    functionName: functionNameOf,
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['prompt'],
      properties: {
        prompt: {
          type: 'string',
          minLength: 1,
          maxLength: PROMPT_CHARACTERS_MAXIMUM,
          description: 'A complete description of the image to generate.',
        },
      },
    } as const,
    async call(argumentsFromModel, context, config) {
      const target = await context.assistants.check(config.assistant_id);
      if (!target.generatesImages) throw new AppError('assistant_misconfigured', `Assistant ${target.id} does not generate images.`);
      const answer = await context.assistants.run(config.assistant_id, argumentsFromModel.prompt, {
        signal: context.signal,
        ...(context.callStatus !== undefined && { status: context.callStatus }),
      });
      return { content: answer.content, sources: answer.sources };
    },
  },
});
