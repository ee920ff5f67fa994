/**
 * The fetch every outbound client takes, so the caller decides how its destination is reached
 * (src/outbound/outbound-guard.ts makes the guarded one for URLs an organization set). Declared in
 * the core, so plugins and the core need nothing from the service that builds the guarded fetch.
 */
import { AppError } from '../errors/app-error.js';

export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** For URLs from the server's own environment, which may point anywhere (Ollama on localhost is normal). */
export const serverFetch: OutboundFetch = (input, init) => globalThis.fetch(input, init);

/** How deep a chain of `cause`s is followed; fetch wraps a refusal two or three levels down. */
const CAUSE_DEPTH_MAXIMUM = 8;

/**
 * The `upstream_refused` AppError inside an error a client caught, if a guarded fetch refused the
 * destination: clients rethrow it as it is instead of a vaguer "could not be reached".
 */
export function outboundRefusalIn(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH_MAXIMUM && current instanceof Error; depth += 1) {
    if (current instanceof AppError && current.code === 'upstream_refused') return current;
    current = current.cause;
  }
  return undefined;
}
