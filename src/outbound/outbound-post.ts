/**
 * OutboundPost over undici's `request` (src/pipeline/upstream/outbound-post.ts says why not fetch): Node
 * streams, one keep-alive pool per origin, no redirects followed (a provider that redirects a
 * completion is answered as the status it sent). The server's own URLs use one shared agent; the
 * outbound guard passes its checking agent for the URLs an organization set.
 */
import { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import type { OutboundPost, OutboundPostResponse } from '../pipeline/upstream/outbound-post.js';

/**
 * The answer's reading functions. Made here rather than inside the async POST: a closure made in
 * an async function keeps that function's whole frame, its arguments with the request's body
 * among them, alive for as long as the closure lives, which for a stream is its whole length.
 */
function answerOf(status: number, stream: Dispatcher.ResponseData['body']): OutboundPostResponse {
  return {
    status,
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
}

/**
 * The request's bytes as a stream that lets go of them once read. undici keeps the body it was
 * given until the answer ends: given the bytes, it would hold a long prompt for the whole of a
 * stream of minutes; given this, it holds an emptied stream. (`Readable.from` would keep them:
 * its iterator holds the array.)
 */
function readOnce(bytes: Uint8Array): Readable {
  let pending: Uint8Array | undefined = bytes;
  return new Readable({
    read() {
      const chunk = pending;
      pending = undefined;
      this.push(chunk ?? null);
      if (chunk !== undefined) this.push(null);
    },
  });
}

/** A POST through `dispatcher`; errors (connection, abort) are undici's, for the caller to translate. */
export function postThrough(dispatcher: Dispatcher): OutboundPost {
  return async ({ url, headers, body, signal }): Promise<OutboundPostResponse> => {
    const { statusCode, body: stream } = await request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.byteLength) },
      body: readOnce(body),
      signal,
      dispatcher,
    });
    return answerOf(statusCode, stream);
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
