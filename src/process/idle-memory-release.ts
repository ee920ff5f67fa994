/**
 * Gives memory back once a busy server goes quiet. Under load V8 lets its heap grow well past what
 * is live (a thousand streams left it at twice its idle size), and when the requests stop nothing
 * allocates, so no collection runs and the process keeps that size for good. When no request has
 * been in flight for `idleMilliseconds` after some were, this runs full collections, which free
 * the garbage and let V8 hand its emptied pages back: the process returns near its idle size. A
 * collection of a large heap blocks for up to about a tenth of a second, and it drops the optimized
 * code whose objects only it held: measured, the next thousand requests cost two to three times the
 * CPU of a warm server, and it takes two to three thousand to get back. So it waits for real quiet
 * (30 s by default; 5 s made a server that pauses between bursts slow at the start of every one),
 * and runs once per busy spell. The collector is V8's own `gc`, reached through
 * `--expose-gc` set at run time (Node offers no other way to ask for a collection).
 */
import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Full collections in a row: the first frees the garbage, the next ones compact what stays so whole pages empty. */
const COLLECTIONS = 3;

export interface IdleMemoryReleaseLogger {
  info(details: object, message: string): void;
}

export interface IdleMemoryReleaseOptions {
  /** IDLE_MEMORY_RELEASE_MS; 0 turns the release off. */
  idleMilliseconds: number;
  logger: IdleMemoryReleaseLogger;
  /** V8's collector; by default the one `--expose-gc` gives. */
  collect?: () => void;
}

function v8Collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Watches `server`'s requests and releases memory after each busy spell; answers a function that stops watching. */
export function releaseMemoryWhenIdle(server: Server, options: IdleMemoryReleaseOptions): () => void {
  if (options.idleMilliseconds <= 0) return () => undefined;
  const collect = options.collect ?? v8Collector();
  let inFlight = 0;
  let busySinceRelease = false;
  let timer: NodeJS.Timeout | undefined;
  const release = (): void => {
    if (inFlight > 0 || !busySinceRelease) return;
    busySinceRelease = false;
    const heapBefore = process.memoryUsage().heapTotal;
    const started = performance.now();
    for (let collection = 0; collection < COLLECTIONS; collection += 1) collect();
    options.logger.info(
      {
        heapTotalBeforeMiB: Math.round(heapBefore / 1_048_576),
        heapTotalAfterMiB: Math.round(process.memoryUsage().heapTotal / 1_048_576),
        durationMs: Math.round(performance.now() - started),
      },
      'idle: memory released',
    );
  };
  const onRequest = (_request: unknown, response: NodeJS.EventEmitter): void => {
    inFlight += 1;
    busySinceRelease = true;
    clearTimeout(timer);
    response.once('close', () => {
      inFlight -= 1;
      if (inFlight > 0) return;
      timer = setTimeout(release, options.idleMilliseconds);
      // A pending release must not keep a stopping process alive.
      timer.unref();
    });
  };
  server.on('request', onRequest);
  return () => {
    clearTimeout(timer);
    server.off('request', onRequest);
  };
}
