/**
 * Proves the round-robin proxy that the multi-process suite and the scale-out benchmark put in
 * front of Merino keeps its promises: requests go to the upstreams in turn and the record says
 * which served each; methods, paths, headers and bodies pass both ways unchanged; a streamed answer
 * reaches the client piece by piece (the upstream writes its second piece only once the client
 * has read the first); an upstream taken out, or failing its health check, gets nothing more, and
 * one that refuses gives 502.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRoundRobinProxy, type RoundRobinProxy, type RoundRobinProxyOptions } from './round-robin-proxy.js';

interface Upstream {
  baseUrl: string;
  close(): Promise<void>;
}

const started: Array<Upstream | RoundRobinProxy> = [];

afterEach(async () => {
  for (const server of started.splice(0).reverse()) await server.close();
});

async function startUpstream(handler: http.RequestListener): Promise<Upstream> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closing;
    },
  };
  started.push(upstream);
  return upstream;
}

/** An upstream that answers with its name and what it received: method, path, a header and the body's digest; always ready. */
function startEchoUpstream(name: string): Promise<Upstream> {
  return startUpstream((incoming, outgoing) => {
    const digest = createHash('sha256');
    let size = 0;
    incoming.on('data', (piece: Buffer) => {
      digest.update(piece);
      size += piece.length;
    });
    incoming.on('end', () => {
      if (incoming.url === '/readyz') {
        outgoing.writeHead(200).end();
        return;
      }
      outgoing.writeHead(201, { 'content-type': 'application/json', 'x-upstream': name, 'set-cookie': `served_by=${name}; HttpOnly` });
      outgoing.end(
        JSON.stringify({
          name,
          method: incoming.method,
          path: incoming.url,
          authorization: incoming.headers.authorization,
          size,
          digest: digest.digest('hex'),
        }),
      );
    });
  });
}

async function startProxy(upstreams: readonly string[], options: RoundRobinProxyOptions = {}): Promise<RoundRobinProxy> {
  const proxy = await startRoundRobinProxy(upstreams, options);
  started.push(proxy);
  return proxy;
}

describe('the round-robin proxy', () => {
  it('sends requests to the upstreams in turn, passing method, path, headers and body both ways, and records who served each', async () => {
    const upstreams = await Promise.all(['a', 'b', 'c'].map(startEchoUpstream));
    const proxy = await startProxy(upstreams.map((upstream) => upstream.baseUrl));
    const body = randomBytes(3 * 1024 * 1024);
    const names: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const response = await fetch(`${proxy.baseUrl}/api/things/${index}?q=x%20y`, {
        method: 'PUT',
        headers: { authorization: 'Bearer token-of-the-test' },
        body,
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('set-cookie')).toBe(`served_by=${response.headers.get('x-upstream')}; HttpOnly`);
      const echoed = (await response.json()) as Record<string, unknown>;
      expect(echoed).toMatchObject({
        method: 'PUT',
        path: `/api/things/${index}?q=x%20y`,
        authorization: 'Bearer token-of-the-test',
        size: body.length,
        digest: createHash('sha256').update(body).digest('hex'),
      });
      names.push(echoed.name as string);
    }
    expect(names).toEqual(['a', 'b', 'c', 'a']);
    expect(proxy.served).toEqual(
      [0, 1, 2, 0].map((upstream, index) => ({
        method: 'PUT',
        path: `/api/things/${index}?q=x%20y`,
        upstream: upstreams[upstream]!.baseUrl,
      })),
    );
  });

  it('streams an answer piece by piece: the upstream writes its second piece only after the client read the first', async () => {
    let clientReadFirst: () => void = () => undefined;
    const firstRead = new Promise<void>((resolve) => (clientReadFirst = resolve));
    const upstream = await startUpstream((_incoming, outgoing) => {
      outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
      outgoing.write('data: first\n\n');
      void firstRead.then(() => outgoing.end('data: second\n\n'));
    });
    const proxy = await startProxy([upstream.baseUrl]);
    const response = await fetch(`${proxy.baseUrl}/stream`);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: first\n\n');
    clientReadFirst();
    let rest = '';
    for (let piece = await reader.read(); !piece.done; piece = await reader.read()) rest += decoder.decode(piece.value);
    expect(rest).toBe('data: second\n\n');
  });

  it('sends nothing more to an upstream taken out, answers 502 when an upstream refuses and 503 with none left', async () => {
    const kept = await startEchoUpstream('kept');
    const removed = await startEchoUpstream('removed');
    const refusing = await startEchoUpstream('refusing');
    await refusing.close();
    const proxy = await startProxy([kept.baseUrl, removed.baseUrl, refusing.baseUrl]);
    proxy.remove(removed.baseUrl);
    expect(proxy.upstreams()).toEqual([kept.baseUrl, refusing.baseUrl]);
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await fetch(`${proxy.baseUrl}/`)).status);
    expect(statuses).toEqual([201, 502, 201, 502]);
    expect(proxy.served.map((served) => served.upstream)).not.toContain(removed.baseUrl);
    proxy.remove(kept.baseUrl);
    proxy.remove(refusing.baseUrl);
    expect((await fetch(`${proxy.baseUrl}/`)).status).toBe(503);
    proxy.add(removed.baseUrl);
    expect((await fetch(`${proxy.baseUrl}/`)).status).toBe(201);
  });

  it('takes an upstream out of the rotation while its health check fails, back once it passes, and keeps all when all fail', async () => {
    const steady = await startEchoUpstream('steady');
    let ready = true;
    const draining = await startUpstream((incoming, outgoing) => {
      if (incoming.url === '/readyz') outgoing.writeHead(ready ? 200 : 503).end();
      else outgoing.writeHead(201, { 'x-upstream': 'draining' }).end();
    });
    const proxy = await startProxy([steady.baseUrl, draining.baseUrl], { healthPath: '/readyz', healthIntervalMilliseconds: 20 });
    const rotationIs = async (expected: string[]) => {
      for (let tries = 0; JSON.stringify(proxy.upstreams()) !== JSON.stringify(expected); tries += 1) {
        if (tries > 500) throw new Error(`the rotation stayed ${proxy.upstreams().join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    ready = false;
    await rotationIs([steady.baseUrl]);
    const served = [];
    for (let index = 0; index < 3; index += 1) served.push((await fetch(`${proxy.baseUrl}/`)).headers.get('x-upstream'));
    expect(served).toEqual(['steady', 'steady', 'steady']);
    ready = true;
    await rotationIs([steady.baseUrl, draining.baseUrl]);
    await draining.close();
    await rotationIs([steady.baseUrl]);
    // With every check failing, the balancer fails open: all stay in the rotation.
    await steady.close();
    await rotationIs([steady.baseUrl, draining.baseUrl]);
  });
});
