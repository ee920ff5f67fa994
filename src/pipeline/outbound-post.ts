/**
 * The lean POST a connector makes to its provider on every chat request. fetch builds a WHATWG
 * Request, Response, Headers and web streams (with their abort wiring) for each call, and with the
 * SDK around it that was a fifth of the server's CPU under load; a POST answered as a Node stream
 * costs a fraction of it. As with OutboundFetch the caller decides how the destination is reached:
 * src/outbound/outbound-post.ts makes the server's and the outbound guard's.
 */
export interface OutboundPostRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
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
