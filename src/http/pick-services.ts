/**
 * Hands a route plugin only the services it declares it uses: app.ts registers each area's plugin
 * with `pick(services, ...)`, so a route file cannot reach the rest of the container unnoticed.
 */
import type { Services } from '../services.js';

/** The named services of the container, and nothing else. */
export function pick<const Name extends keyof Services>(services: Services, ...names: Name[]): Pick<Services, Name> {
  return Object.fromEntries(names.map((name) => [name, services[name]])) as Pick<Services, Name>;
}
