/**
 * The fetch for provider URLs from the server's environment (OLLAMA_BASE_URL, and OPENAI_BASE_URL
 * for embeddings): it may go anywhere, as serverFetch does, but an answer larger than
 * UPSTREAM_RESPONSE_MAX_BYTES is cut by undici and fails as `oversizedAnswerIn` recognises, so a
 * misbehaving provider cannot fill the process's memory. The pipeline's deadlines bound every
 * call in time, so undici's own timeouts, which would only cut long answers short, are off.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { OutboundFetch } from '../pipeline/outbound-fetch.js';

export function boundedServerFetch(responseBytesMaximum: number): OutboundFetch {
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, maxResponseSize: responseBytesMaximum });
  return (input, init) =>
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- undici's own fetch, since only it takes this dispatcher: its Response is another class than the global one, with the same web interface, which is all any caller uses.
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent,
    });
}
