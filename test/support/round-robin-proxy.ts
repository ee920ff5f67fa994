/**
 * A round-robin HTTP load balancer on loopback, standing in for the operator's own (nginx,
 * HAProxy, a cloud balancer) in front of several Merino processes: each request goes to the next
 * upstream in turn, with its method, path, headers and body passed through untouched, and the
 * answer streamed back as it arrives (server-sent events are not buffered). It records which
 * upstream served each request, so a test can prove that two steps ran on different processes
 * without the server saying so. With `healthPath`, it checks each upstream as balancers do (every
 * `healthIntervalMilliseconds`, 200 means in, two failures in a row mean out) and sends requests
 * only to those that pass, or to all when none does; `remove` takes one out for good. An upstream
 * that refuses a connection meanwhile gets the client a 502 (no retries, so a test sees it).
 *
 * Written here rather than taken from a library (http-proxy and the like) because what the suites
 * need beyond node:http piping is the record of upstreams and the health check, which those lack.
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

export interface RoundRobinProxyOptions {
  /** Checked on every upstream, e.g. `/readyz`; without it every upstream is always in the rotation. */
  healthPath?: string;
  healthIntervalMilliseconds?: number;
}

export interface RoundRobinProxy {
  /** Where clients send their requests, e.g. http://127.0.0.1:40000. */
  baseUrl: string;
  /** Every request passed on so far, in the order they arrived. */
  served: ServedRequest[];
  /** The upstreams in the rotation now (added, not removed, passing their health check, or all if none passes), in order. */
  upstreams(): readonly string[];
  add(upstream: string): void;
  remove(upstream: string): void;
  close(): Promise<void>;
}

const DEFAULT_HEALTH_INTERVAL_MILLISECONDS = 100;
/**
 * A check that has not answered by then fails. Generous, since a busy machine answers slowly
 * while it is perfectly healthy; a dead process refuses the connection at once anyway.
 */
const HEALTH_TIMEOUT_MILLISECONDS = 2_000;
/** Failed checks in a row that take an upstream out (one passing check brings it back), as balancers count them. */
const UNHEALTHY_THRESHOLD = 2;

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not passed on. */
const HOP_BY_HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEndHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP_HEADERS.has(name)));
}

export async function startRoundRobinProxy(
  initialUpstreams: readonly string[],
  options: RoundRobinProxyOptions = {},
): Promise<RoundRobinProxy> {
  const members = [...initialUpstreams];
  const failingHealthCheck = new Set<string>();
  const failedChecks = new Map<string, number>();
  // With every upstream failing, all stay in: balancers "fail open" then, as a failing check is
  // likelier a problem of the check than of every server at once.
  const rotation = (): string[] => {
    const passing = members.filter((member) => !failingHealthCheck.has(member));
    return passing.length > 0 ? passing : [...members];
  };
  const served: ServedRequest[] = [];
  let turn = 0;
  // Kept-alive connections to the upstreams, as balancers keep them: without them every request
  // would pay a TCP handshake, and the benchmark would measure the proxy more than Merino.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const server = http.createServer((incoming, outgoing) => {
    const inRotation = rotation();
    const upstream = inRotation[turn++ % inRotation.length];
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

  const interval = options.healthIntervalMilliseconds ?? DEFAULT_HEALTH_INTERVAL_MILLISECONDS;
  let checking: Promise<void> | undefined;
  const checkHealth = async (healthPath: string): Promise<void> => {
    await Promise.all(
      members.map(async (member) => {
        const passes = await fetch(new URL(healthPath, member), { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MILLISECONDS) })
          .then(async (answer) => {
            await answer.body?.cancel();
            return answer.status === 200;
          })
          .catch(() => false);
        const failuresInARow = passes ? 0 : (failedChecks.get(member) ?? 0) + 1;
        failedChecks.set(member, failuresInARow);
        if (failuresInARow >= UNHEALTHY_THRESHOLD) failingHealthCheck.add(member);
        else failingHealthCheck.delete(member);
      }),
    );
  };
  const { healthPath } = options;
  const healthTimer =
    healthPath === undefined
      ? undefined
      : setInterval(() => {
          checking ??= checkHealth(healthPath).finally(() => (checking = undefined));
        }, interval);
  healthTimer?.unref();

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    served,
    upstreams: rotation,
    add(upstream) {
      members.push(upstream);
    },
    remove(upstream) {
      const index = members.indexOf(upstream);
      if (index >= 0) members.splice(index, 1);
    },
    async close() {
      clearInterval(healthTimer);
      await checking;
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closing;
    },
  };
}
