/**
 * OutboundPost over undici's `request` (src/pipeline/outbound-post.ts says why not fetch): Node
 * streams, one keep-alive pool per origin, no redirects followed (a provider that redirects a
 * completion is answered as the status it sent). The server's own URLs use one shared agent; the
 * outbound guard passes its checking agent for the URLs an organization set.
 */
import { Agent, request, type Dispatcher } from 'undici';
import type { OutboundPost, OutboundPostResponse } from '../pipeline/outbound-post.js';

/** A POST through `dispatcher`; errors (connection, abort) are undici's, for the caller to translate. */
export function postThrough(dispatcher: Dispatcher): OutboundPost {
  return async ({ url, headers, body, signal }): Promise<OutboundPostResponse> => {
    // Given text, undici would keep it (in its handler) besides the bytes it makes of it (in its request)
    // until the answer ends: for a stream with a long prompt, the prompt twice over for minutes.
    const bytes = Buffer.from(body);
    const { statusCode, body: stream } = await request(url, { method: 'POST', headers, body: bytes, signal, dispatcher });
    return {
      status: statusCode,
      // Made only when asked for, so that `text` alone reads a whole answer. A reader that stops early
      // (a stream read up to its `[DONE]`) leaves the body open, not destroyed, so that `discard`
      // reads the rest and the connection goes back to the pool.
      get body() {
        return stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
      },
      text: () => stream.text(),
      discard: async () => {
        await stream.dump();
      },
    };
  };
}

/**
 * The one connection pool for URLs from the server's environment (OPENAI_BASE_URL,
 * OLLAMA_BASE_URL), which may point anywhere (a local vLLM is normal): provider calls, model lists
 * and embeddings all go through it. An answer larger than `responseBytesMaximum`
 * (UPSTREAM_RESPONSE_MAX_BYTES) is cut by undici itself and fails as `oversizedAnswerIn`
 * recognises; the pipeline's deadlines bound every call in time, so undici's own timeouts, which
 * would only cut long answers short, are off.
 */
export function serverAgent(responseBytesMaximum: number): Agent {
  return new Agent({ headersTimeout: 0, bodyTimeout: 0, maxResponseSize: responseBytesMaximum });
}

/** A POST to the server's own URLs through an agent of its own (tests; the server shares `serverAgent` with its fetch). */
export function serverPost(responseBytesMaximum: number): OutboundPost {
  return postThrough(serverAgent(responseBytesMaximum));
}
