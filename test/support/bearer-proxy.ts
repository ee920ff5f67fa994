/**
 * A loopback HTTP proxy that adds `Authorization: Bearer <token>` to every request it passes on,
 * for clients that cannot send a header of their own (the MCP conformance suite's command line has
 * no header option). Everything else (method, path, the Host and Origin the client sent, the body)
 * passes through untouched, and answers stream back as they arrive, so server-sent events are not
 * buffered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** Where clients send their requests, e.g. http://127.0.0.1:40000. */
  baseUrl: string;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not passed on. */
const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEndHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP_HEADERS.has(name)));
}

export async function startBearerProxy(upstream: string, token: string): Promise<BearerProxy> {
  const target = new URL(upstream);
  const server = http.createServer((incoming, outgoing) => {
    const forwarded = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...endToEndHeaders(incoming.headers), authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
        answer.pipe(outgoing);
        answer.on('error', () => outgoing.destroy());
      },
    );
    forwarded.on('error', () => {
      if (outgoing.headersSent) outgoing.destroy();
      else outgoing.writeHead(502, { 'content-type': 'text/plain' }).end('the upstream did not answer');
    });
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) forwarded.destroy();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closing;
    },
  };
}
