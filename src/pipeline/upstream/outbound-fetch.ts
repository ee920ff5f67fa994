/**
 * The fetch every outbound client takes, so the caller decides how its destination is reached
 * (src/outbound/outbound-guard.ts makes the guarded one for URLs an organization set). Declared in
 * the core, so plugins and the core need nothing from the service that builds the guarded fetch.
 */
import { AppError } from '../../errors/app-error.js';

export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** For URLs from the server's own environment, which may point anywhere (Ollama on localhost is normal). */
export const serverFetch: OutboundFetch = (input, init) => globalThis.fetch(input, init);

/** How deep a chain of `cause`s is followed; fetch wraps a refusal two or three levels down. */
const CAUSE_DEPTH_MAXIMUM = 8;

/** The first error in `error`'s chain of causes (itself included) that `matches`, however deeply fetch, undici or a client wrapped it. */
export function causeMatching<Found extends Error>(error: unknown, matches: (cause: Error) => cause is Found): Found | undefined;
export function causeMatching(error: unknown, matches: (cause: Error) => boolean): Error | undefined;
export function causeMatching(error: unknown, matches: (cause: Error) => boolean): Error | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH_MAXIMUM && current instanceof Error; depth += 1) {
    if (matches(current)) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * The `upstream_refused` AppError inside an error a client caught, if a guarded fetch refused the
 * destination: clients rethrow it as it is instead of a vaguer "could not be reached".
 */
export function outboundRefusalIn(error: unknown): AppError | undefined {
  return causeMatching(error, (cause): cause is AppError => cause instanceof AppError && cause.code === 'upstream_refused');
}
