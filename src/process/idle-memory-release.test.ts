// Proves the idle memory release over a real HTTP server on loopback: it collects once after a
// busy spell goes quiet, never while a request is in flight, never before any request, never with
// IDLE_MEMORY_RELEASE_MS of 0, and with V8's own collector the heap is no larger afterwards.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseMemoryWhenIdle } from './idle-memory-release.js';

const IDLE_MILLISECONDS = 60;

interface Watched {
  url: string;
  collections: () => number;
  logged: object[];
  finishSlowRequest: () => void;
  close: () => Promise<void>;
}

const opened: Watched[] = [];

async function watchedServer(idleMilliseconds: number, useV8Collector = false): Promise<Watched> {
  let pendingSlow: (() => void) | undefined;
  const server = http.createServer((request, response) => {
    if (request.url === '/slow') pendingSlow = () => response.end('slow');
    else response.end('fast');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let collections = 0;
  const logged: object[] = [];
  const stop = releaseMemoryWhenIdle(server, {
    idleMilliseconds,
    logger: { info: (details) => logged.push(details) },
    ...(!useV8Collector && { collect: () => (collections += 1) }),
  });
  const watched: Watched = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    collections: () => collections,
    logged,
    finishSlowRequest: () => pendingSlow?.(),
    close: async () => {
      stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  opened.push(watched);
  return watched;
}

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Waits for `condition` (a busy test machine may run timers late), failing after a few seconds. */
async function eventually(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 5_000) throw new Error('the condition did not come true within 5 s');
    await pause(20);
  }
}

afterEach(async () => {
  for (const watched of opened.splice(0)) await watched.close();
});

describe('releaseMemoryWhenIdle', () => {
  it('collects once after a busy spell goes quiet, and not again until the next one', async () => {
    const watched = await watchedServer(IDLE_MILLISECONDS);
    await Promise.all([fetch(`${watched.url}/a`), fetch(`${watched.url}/b`)].map(async (answer) => (await answer).text()));
    await eventually(() => watched.collections() > 0);
    expect(watched.collections()).toBe(3);
    expect(watched.logged).toHaveLength(1);
    await pause(IDLE_MILLISECONDS * 4);
    expect(watched.collections()).toBe(3);
    await (await fetch(`${watched.url}/c`)).text();
    await eventually(() => watched.collections() > 3);
    expect(watched.collections()).toBe(6);
  });

  it('never collects while a request is in flight', async () => {
    const watched = await watchedServer(IDLE_MILLISECONDS);
    const slow = fetch(`${watched.url}/slow`);
    await pause(20);
    await (await fetch(`${watched.url}/fast`)).text();
    await pause(IDLE_MILLISECONDS * 4);
    expect(watched.collections()).toBe(0);
    watched.finishSlowRequest();
    await (await slow).text();
    await eventually(() => watched.collections() > 0);
    expect(watched.collections()).toBe(3);
  });

  it('never collects before any request, nor with IDLE_MEMORY_RELEASE_MS of 0', async () => {
    const untouched = await watchedServer(IDLE_MILLISECONDS);
    const off = await watchedServer(0);
    await (await fetch(`${off.url}/a`)).text();
    await pause(IDLE_MILLISECONDS * 4);
    expect(untouched.collections()).toBe(0);
    expect(off.collections()).toBe(0);
  });

  it("leaves the heap no larger with V8's own collector", async () => {
    const watched = await watchedServer(IDLE_MILLISECONDS, true);
    // Garbage to collect: arrays of a few MiB each that nobody keeps.
    let characters = 0;
    for (let index = 0; index < 50; index += 1) characters += 'x'.repeat(200_000).split('').length;
    expect(characters).toBe(10_000_000);
    await (await fetch(`${watched.url}/a`)).text();
    await eventually(() => watched.logged.length > 0);
    const [details] = watched.logged as [{ heapTotalBeforeMiB: number; heapTotalAfterMiB: number }];
    expect(details.heapTotalAfterMiB).toBeLessThanOrEqual(details.heapTotalBeforeMiB);
  });
});
