/**
 * An OutboundFetch through an undici dispatcher: the outbound guard's checking agent for URLs an
 * organization set, the server's agent (src/outbound/outbound-post.ts, `serverAgent`) for the
 * environment's. undici's own fetch is used because only it takes a dispatcher.
 */
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import type { OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';

export function fetchThrough(dispatcher: Dispatcher): OutboundFetch {
  return (input, init) =>
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- undici's Response is another class than the global one, with the same web interface, which is all any caller uses.
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    });
}
