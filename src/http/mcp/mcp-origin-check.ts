/**
 * MCP's defence against DNS rebinding (its transport specification: "Servers MUST validate the
 * Origin header"): a web page on a hostile site whose name was made to resolve to Merino's address
 * must not reach `/mcp`. MCP clients outside a browser (IDEs, desktop apps, agent frameworks) send
 * no `Origin`, and pass. A browser request passes only from an origin named in CORS_ORIGINS, or
 * from a loopback page to a Merino reached on loopback (a local inspector talking to a local
 * server), where both sides are the same machine.
 */

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostnameOf(authority: string): string | undefined {
  try {
    return new URL(`http://${authority}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTNAMES.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

export interface OriginFacts {
  /** The request's `Origin` header, if it sent one. */
  origin: string | undefined;
  /** The request's `Host` header. */
  host: string | undefined;
  /** CORS_ORIGINS: browser origins allowed to call Merino across origins. */
  allowedOrigins: readonly string[];
}

export function mcpOriginAllowed(facts: OriginFacts): boolean {
  if (facts.origin === undefined) return true;
  if (facts.allowedOrigins.includes(facts.origin)) return true;
  const hostname = facts.host === undefined ? undefined : hostnameOf(facts.host);
  return isLoopbackOrigin(facts.origin) && hostname !== undefined && LOOPBACK_HOSTNAMES.has(hostname);
}
