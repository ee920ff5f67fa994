/**
 * A round-robin HTTP load balancer on loopback, standing in for the operator's own (nginx,
 * HAProxy, a cloud balancer) in front of several Merino processes: each request goes to the next
 * upstream in turn, with its method, path, headers and body passed through untouched, and the
 * answer streamed back as it arrives (server-sent events are not buffered). It records which
 * upstream served each request, so a test can prove that two steps ran on different processes
 * without the server saying so. An upstream is taken out with `remove`, as a balancer's health
 * check would after its process died; one that refuses a connection meanwhile gets the client a 502.
 *
 * Written here rather than taken from a library (http-proxy and the like) because what the suites
 * need is the record of upstreams and nothing else: twenty lines of node:http piping.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedRequest {
  method: string;
  /** The path and query, as the client sent them. */
  path: string;
  /** The upstream's base URL, e.g. http://127.0.0.1:40001. */
  upstream: string;
}

export interface RoundRobinProxy {
  /** Where clients send their requests, e.g. http://127.0.0.1:40000. */
  baseUrl: string;
  /** Every request passed on so far, in the order they arrived. */
  served: ServedRequest[];
  /** The upstreams still in the rotation, in rotation order. */
  upstreams(): readonly string[];
  add(upstream: string): void;
  remove(upstream: string): void;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not passed on. */
const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEndHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP_HEADERS.has(name)));
}

export async function startRoundRobinProxy(initialUpstreams: readonly string[]): Promise<RoundRobinProxy> {
  const rotation = [...initialUpstreams];
  const served: ServedRequest[] = [];
  let turn = 0;
  // Kept-alive connections to the upstreams, as balancers keep them: without them every request
  // would pay a TCP handshake, and the benchmark would measure the proxy more than Merino.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const server = http.createServer((incoming, outgoing) => {
    const upstream = rotation[turn++ % rotation.length];
    if (upstream === undefined) {
      outgoing.writeHead(503, { 'content-type': 'text/plain' }).end('no upstream in the rotation');
      return;
    }
    const target = new URL(upstream);
    served.push({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', upstream });
    const forwarded = http.request(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: endToEndHeaders(incoming.headers),
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
        // Each piece is written as it comes, so a stream reaches the client chunk by chunk.
        answer.pipe(outgoing);
        answer.on('error', () => outgoing.destroy());
      },
    );
    forwarded.on('error', () => {
      if (outgoing.headersSent) outgoing.destroy();
      else outgoing.writeHead(502, { 'content-type': 'text/plain' }).end('the upstream did not answer');
    });
    // A client that goes away takes its upstream request with it, as a stopped stream should.
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) forwarded.destroy();
    });
    incoming.pipe(forwarded);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    served,
    upstreams: () => [...rotation],
    add(upstream) {
      rotation.push(upstream);
    },
    remove(upstream) {
      const index = rotation.indexOf(upstream);
      if (index >= 0) rotation.splice(index, 1);
    },
    async close() {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closing;
    },
  };
}
