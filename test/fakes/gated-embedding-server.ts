/**
 * An OpenAI-compatible `POST /v1/embeddings` that holds every request until the test opens its
 * gate. While shut, an ingestion job whose knowledge base has an embedding model stays mid-way
 * ("Computing embeddings"), which is how the durability tests keep a job in hand while they kill
 * the server process holding it or expire its lease. Once open, it answers the held requests and
 * later ones as OpenAI does, with the deterministic vectors of fake-http.ts. A held request whose
 * client went away (its process was killed) is dropped.
 */
import {
  appendBounded,
  deterministicEmbedding,
  isRecord,
  listenOnLoopback,
  readRequestBody,
  recordedBody,
  sendJson,
  type RecordedRequest,
} from './fake-http.js';

export interface GatedEmbeddingServer {
  /** e.g. http://127.0.0.1:PORT/v1, as OPENAI_BASE_URL takes it. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Resolves once `count` embeddings requests have arrived in all (held or answered). */
  waitForRequests(count: number, timeoutMilliseconds?: number): Promise<void>;
  /** Answers every held request and every later one. */
  open(): void;
  close(): Promise<void>;
}

export async function startGatedEmbeddingServer(): Promise<GatedEmbeddingServer> {
  const requests: RecordedRequest[] = [];
  let opened = false;
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));

  const server = await listenOnLoopback(async (request, response, shutdownSignal) => {
    const body = await readRequestBody(request);
    appendBounded(requests, {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: { ...request.headers },
      body: recordedBody(body),
      receivedAt: Date.now(),
    });
    if (request.method !== 'POST' || !(request.url ?? '').endsWith('/v1/embeddings') || body.kind !== 'json' || !isRecord(body.value)) {
      sendJson(response, 404, {
        error: { message: 'Only POST /v1/embeddings with a JSON body is served here.', type: 'invalid_request_error' },
      });
      return;
    }
    const value = body.value;
    await new Promise<void>((resolve) => {
      if (opened || shutdownSignal.aborted) {
        resolve();
        return;
      }
      void gate.then(resolve);
      shutdownSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (shutdownSignal.aborted) return;
    const inputs: unknown[] = Array.isArray(value.input) ? value.input : [value.input];
    const asBase64 = value.encoding_format === 'base64';
    const data = inputs.map((input, index) => {
      const vector = deterministicEmbedding(String(input));
      return { object: 'embedding', index, embedding: asBase64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
    });
    sendJson(response, 200, {
      object: 'list',
      data,
      model: value.model,
      usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
    });
  });

  return {
    baseUrl: `${server.origin}/v1`,
    requests,
    async waitForRequests(count, timeoutMilliseconds = 30_000) {
      const deadline = Date.now() + timeoutMilliseconds;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${requests.length} of ${count} embeddings requests arrived`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    open() {
      opened = true;
      openGate();
    },
    close: () => server.close(),
  };
}
