/**
 * The graceful stop of one server process, as load balancers and clients see it. A SIGTERM first
 * makes readiness fail (so a balancer stops sending new requests) while everything else still
 * answers; then the listener closes and requests in flight finish; streams still running when
 * their grace runs out are ended with a clear `server_shutting_down` error instead of being cut.
 * The state is this process's alone on purpose: draining is about one process leaving the fleet.
 */
import { setMaxListeners } from 'node:events';

export class ServerDrain {
  private draining = false;
  private readonly streamsEnding = new AbortController();

  constructor() {
    // Every request in flight listens to this one signal (and stops listening when it ends), so
    // thousands of listeners at once are normal here, not the leak Node warns of past ten.
    setMaxListeners(0, this.streamsEnding.signal);
  }

  /** True from the start of a graceful stop: readiness answers 503 from then on. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Aborts when streams still running must end now; completion runs listen to it. */
  get streamsEnd(): AbortSignal {
    return this.streamsEnding.signal;
  }

  begin(): void {
    this.draining = true;
  }

  endStreams(): void {
    this.draining = true;
    this.streamsEnding.abort();
  }
}
