/**
 * The lean POST a connector makes to its provider on every chat request. fetch builds a WHATWG
 * Request, Response, Headers and web streams (with their abort wiring) for each call, and with the
 * SDK around it that was a fifth of the server's CPU under load; a POST answered as a Node stream
 * costs a fraction of it. As with OutboundFetch the caller decides how the destination is reached:
 * src/outbound/outbound-post.ts makes the server's and the outbound guard's.
 */
import { causeMatching } from './outbound-fetch.js';

export interface OutboundPostRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  /**
   * Bytes rather than text: text would be kept beside the bytes made of it for as long as the call
   * lasts, and the POST lets the bytes go once they are sent (src/outbound/outbound-post.ts).
   */
  body: Uint8Array;
  signal: AbortSignal;
}

export interface OutboundPostResponse {
  status: number;
  /**
   * The body's bytes as they arrive. Stopping early leaves the rest unread (not destroyed): call
   * `discard` then, so the connection can be reused.
   */
  body: AsyncIterable<Uint8Array>;
  /** The whole body as text. */
  text(): Promise<string>;
  /** Reads and drops the rest of the body (an error status's, or what follows a stream's end), so the connection is freed. */
  discard(): Promise<void>;
}

export type OutboundPost = (request: OutboundPostRequest) => Promise<OutboundPostResponse>;

/** The code undici gives a body cut for passing the client's maximum response size. */
const OVERSIZED_RESPONSE_CODE = 'UND_ERR_RES_EXCEEDED_MAX_SIZE';

/**
 * True when a POST or fetch failed because the answer passed UPSTREAM_RESPONSE_MAX_BYTES: a
 * provider sending more than any answer needs (a hostile or broken server) is stopped before it
 * can fill the process's memory, and the client is told so rather than that it could not connect.
 */
export function oversizedAnswerIn(error: unknown): boolean {
  return causeMatching(error, (cause) => (cause as { code?: unknown }).code === OVERSIZED_RESPONSE_CODE) !== undefined;
}
