// The image answers of the fake OpenAI and Gemini servers, in each provider's real wire format:
// OpenAI's `POST /v1/images/generations` (`data[].b64_json`, `output_format`, `usage`, and the
// 400 `moderation_blocked` / `content_policy_violation` refusals) and a Gemini image model's
// `generateContent` (an `inlineData` part, or `promptFeedback.blockReason` / `IMAGE_SAFETY`).
// The prompt picks the answer: one containing IMAGE_PROMPTS.refused is refused, one containing
// IMAGE_PROMPTS.oversized gets an image of OVERSIZED_IMAGE_BYTES; anything else a 1×1 PNG.
import { randomBytes } from 'node:crypto';
import { isRecord } from './fake-http.js';

/** A valid 1×1 PNG, which a browser draws. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** What a prompt says to get a refusal or an oversized image. */
export const IMAGE_PROMPTS = { refused: 'please-refuse-this', oversized: 'please-send-a-huge-image' } as const;

/** The size of the oversized image: past any IMAGE_MAX_BYTES a test sets below it. */
export const OVERSIZED_IMAGE_BYTES = 65_536;

export interface ImageAnswer {
  status: number;
  body: Record<string, unknown>;
}

function imageBytes(prompt: string): Buffer {
  if (!prompt.includes(IMAGE_PROMPTS.oversized)) return TINY_PNG;
  return Buffer.concat([TINY_PNG.subarray(0, 8), randomBytes(OVERSIZED_IMAGE_BYTES - 8)]);
}

/** `POST /v1/images/generations` as OpenAI answers it. */
export function openAiImageAnswer(body: Record<string, unknown>): ImageAnswer {
  const prompt = typeof body.prompt === 'string' ? body.prompt : '';
  const model = typeof body.model === 'string' ? body.model : 'dall-e-2';
  if (prompt === '')
    return {
      status: 400,
      body: { error: { message: "Missing required parameter: 'prompt'.", type: 'invalid_request_error', param: 'prompt', code: null } },
    };
  if (prompt.includes(IMAGE_PROMPTS.refused)) {
    const dallE = model.startsWith('dall-e');
    return {
      status: 400,
      body: {
        error: {
          message: 'Your request was rejected as a result of our safety system.',
          type: dallE ? 'invalid_request_error' : 'image_generation_user_error',
          param: null,
          code: dallE ? 'content_policy_violation' : 'moderation_blocked',
        },
      },
    };
  }
  const b64_json = imageBytes(prompt).toString('base64');
  const inputTokens = Math.ceil(prompt.length / 4);
  return {
    status: 200,
    body: {
      created: Math.floor(Date.now() / 1000),
      data: [{ b64_json }],
      ...(!model.startsWith('dall-e') && {
        output_format: 'png',
        size: '1024x1024',
        quality: 'low',
        usage: {
          input_tokens: inputTokens,
          output_tokens: 272,
          total_tokens: inputTokens + 272,
          input_tokens_details: { text_tokens: inputTokens, image_tokens: 0 },
        },
      }),
    },
  };
}

/** Whether a `generateContent` body asks for images (`generationConfig.responseModalities` holds IMAGE). */
export function asksForImage(body: Record<string, unknown>): boolean {
  const config = body.generationConfig;
  return isRecord(config) && Array.isArray(config.responseModalities) && config.responseModalities.includes('IMAGE');
}

/** A Gemini image model's `generateContent` answer for `prompt`. */
export function geminiImageAnswer(prompt: string, model: string): ImageAnswer {
  const promptTokenCount = Math.ceil(prompt.length / 4);
  const usageMetadata = { promptTokenCount, candidatesTokenCount: 1290, totalTokenCount: promptTokenCount + 1290 };
  if (prompt.includes(IMAGE_PROMPTS.refused))
    return {
      status: 200,
      body: { candidates: [{ finishReason: 'IMAGE_SAFETY', index: 0 }], usageMetadata, modelVersion: model },
    };
  const data = imageBytes(prompt).toString('base64');
  return {
    status: 200,
    body: {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Here is your image.' }, { inlineData: { mimeType: 'image/png', data } }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: model,
    },
  };
}
