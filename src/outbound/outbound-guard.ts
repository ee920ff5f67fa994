/**
 * The one way Merino reaches a URL that an organization set (its model providers, its LAMB
 * knowledge-base server, its Moodle; later its MCP servers and web search): a `fetch` whose
 * connections may only go to public addresses. An organization admin is trusted with their
 * organization, not with the network Merino runs in, so such a URL must not become a way to reach
 * loopback services, cloud metadata (169.254.169.254), the private network or Merino itself.
 *
 * The check runs where it cannot be dodged: on the addresses a connection is about to use, inside
 * undici's connector, after DNS has answered. A host name that resolves to a public address when
 * saved and to 127.0.0.1 later (DNS rebinding) is refused, every redirect hop connects through the
 * same connector, and every spelling of an address (2130706433, 0x7f.1, [::ffff:127.0.0.1]) is
 * normalized by the URL parser before it gets here. Saving a URL whose host is a literal internal
 * address or `localhost` is refused too, so the admin hears about it at once, naming the field.
 *
 * URLs from the server's own environment (OPENAI_BASE_URL, OLLAMA_BASE_URL, MOODLE_API_URL,
 * Open-Meteo) are the operator's choice and use `serverFetch`, which may go anywhere. Operators
 * allow named private hosts for organizations with OUTBOUND_ALLOWED_HOSTS.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Agent, buildConnector } from 'undici';
import { AppError } from '../errors/app-error.js';
import { causeMatching, type OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';
import type { OutboundPost } from '../pipeline/upstream/outbound-post.js';
import { fetchThrough } from './fetch-through.js';
import { postThrough } from './outbound-post.js';
import { canonicalAddress, classifyAddress, type AddressKind } from './address-classification.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Answers every address a host name has; injectable so tests can play a rebinding DNS server. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundGuardOptions {
  /** Host names or addresses (OUTBOUND_ALLOWED_HOSTS) organizations may reach although they are not public. */
  allowedHosts: readonly string[];
  /** UPSTREAM_RESPONSE_MAX_BYTES: undici cuts any answer larger than this; unbounded when absent. */
  responseBytesMaximum?: number;
  /** Defaults to the system resolver (getaddrinfo: /etc/hosts, then DNS). */
  resolve?: HostResolver;
  /** Addresses of this machine, refused even when public; defaults to every network interface's. */
  ownAddresses?: readonly string[];
}

/** Why a destination is refused: `this server` for Merino's own addresses, else the address's kind. */
type RefusalReason = Exclude<AddressKind, 'public'> | 'this server';

/** Raised inside the connector; fetch wraps it, and `fetchFor` turns it into an AppError naming the field. */
class DestinationRefused extends Error {
  constructor(
    readonly host: string,
    readonly reason: RefusalReason,
  ) {
    super(`Outbound connection to ${host} refused: ${reason} address.`);
    this.name = 'DestinationRefused';
  }
}

const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    systemLookup(hostname, { all: true, order: 'verbatim' }, (error, addresses: LookupAddress[]) =>
      error ? reject(error) : resolve(addresses),
    );
  });

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => entry.address);
}

/** `[::1]` → `::1`, `Example.ORG.` → `example.org`: the spelling hosts are compared in. */
function normalizedHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** Names every resolver answers with loopback, so a URL naming them is refused when saved. */
function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.localdomain';
}

export class OutboundGuard {
  private readonly allowedNames = new Set<string>();
  private readonly allowedAddresses = new Set<string>();
  private readonly ownAddresses: Set<string>;
  private readonly resolve: HostResolver;
  private readonly agent: Agent;
  private readonly post: OutboundPost;
  private readonly fetch: OutboundFetch;
  /** One fetch per field, built once rather than on every request. */
  private readonly fetches = new Map<string, OutboundFetch>();

  constructor(options: OutboundGuardOptions) {
    for (const entry of options.allowedHosts) {
      const host = normalizedHost(entry);
      if (host === '') continue;
      const address = canonicalAddress(host);
      if (address === undefined) this.allowedNames.add(host);
      else this.allowedAddresses.add(address);
    }
    this.ownAddresses = new Set(
      (options.ownAddresses ?? interfaceAddresses())
        .map((address) => canonicalAddress(address))
        .filter((address): address is string => address !== undefined),
    );
    this.resolve = options.resolve ?? systemResolver;
    const connect = buildConnector({ lookup: this.lookup });
    this.agent = new Agent({
      ...(options.responseBytesMaximum !== undefined && { maxResponseSize: options.responseBytesMaximum }),
      connect: (connectOptions, callback) => {
        // Node skips `lookup` for a literal address, so literals are checked here.
        const refusal = isIP(connectOptions.hostname) === 0 ? undefined : this.refusalFor(connectOptions.hostname, connectOptions.hostname);
        if (refusal !== undefined) {
          callback(refusal, null);
          return;
        }
        connect(connectOptions, callback);
      },
    });
    this.post = postThrough(this.agent);
    this.fetch = fetchThrough(this.agent);
  }

  /** Why connecting to this address on behalf of `host` is refused, or undefined when it may go ahead. */
  private refusalFor(host: string, address: string): DestinationRefused | undefined {
    const canonical = canonicalAddress(address);
    if (canonical !== undefined && this.allowedAddresses.has(canonical)) return undefined;
    if (canonical !== undefined && this.ownAddresses.has(canonical)) return new DestinationRefused(host, 'this server');
    const kind = classifyAddress(address);
    return kind === 'public' ? undefined : new DestinationRefused(host, kind);
  }

  /** True when the operator allowed this host by name (OUTBOUND_ALLOWED_HOSTS), whatever it resolves to. */
  private allowsName(host: string): boolean {
    return this.allowedNames.has(normalizedHost(host));
  }

  /**
   * Every address of `hostname`, after checking each one: a name with any non-public address is
   * refused whole, since which one a connection would use is not ours to choose.
   */
  async checkedAddresses(hostname: string): Promise<ResolvedAddress[]> {
    const addresses = await this.resolve(hostname);
    if (addresses.length === 0) throw Object.assign(new Error(`No address found for ${hostname}.`), { code: 'ENOTFOUND' });
    if (this.allowsName(hostname)) return addresses;
    for (const { address } of addresses) {
      const refusal = this.refusalFor(hostname, address);
      if (refusal !== undefined) throw refusal;
    }
    return addresses;
  }

  /** The `lookup` given to every socket the guarded agent opens; exposed so tests can drive it directly. */
  readonly lookup = (
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | ResolvedAddress[], family?: number) => void,
  ): void => {
    this.checkedAddresses(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family === undefined ? addresses : addresses.filter((entry) => entry.family === family);
        const first = usable[0];
        if (first === undefined) {
          callback(Object.assign(new Error(`No IPv${family} address found for ${hostname}.`), { code: 'ENOTFOUND' }), '');
          return;
        }
        if (options.all === true) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ''),
    );
  };

  /**
   * A fetch for the URL an organization set in `field` (e.g. `providers.openai.base_url`): it
   * connects only to public addresses (or allowed hosts), and a refused destination fails with a
   * 502 `upstream_refused` naming the field and the host, never the addresses it resolved to.
   */
  fetchFor(field: string): OutboundFetch {
    const existing = this.fetches.get(field);
    if (existing !== undefined) return existing;
    const guardedFetch: OutboundFetch = async (input, init) => {
      this.checkScheme(new URL(input instanceof Request ? input.url : input.toString()), field);
      return this.refusalsNamed(field, () => this.fetch(input, init));
    };
    this.fetches.set(field, guardedFetch);
    return guardedFetch;
  }

  /** The lean POST (src/outbound/outbound-post.ts) for the URL an organization set in `field`, checked as `fetchFor`'s is. */
  postFor(field: string): OutboundPost {
    return async (request) => {
      this.checkScheme(new URL(request.url), field);
      return this.refusalsNamed(field, () => this.post(request));
    };
  }

  private checkScheme(url: URL, field: string): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new AppError('upstream_refused', `The organization's ${field} is not an http(s) URL.`, { details: { field } });
  }

  /** Runs a call, turning a refused destination into a 502 `upstream_refused` naming the field and host, never the addresses. */
  private async refusalsNamed<Result>(field: string, call: () => Promise<Result>): Promise<Result> {
    try {
      return await call();
    } catch (error) {
      const refusal = causeMatching(error, (cause): cause is DestinationRefused => cause instanceof DestinationRefused);
      if (refusal === undefined) throw error;
      throw new AppError(
        'upstream_refused',
        `The organization's ${field} points to ${refusal.host}, which is not a public address; Merino does not call private or internal addresses for an organization (an operator can allow a host with OUTBOUND_ALLOWED_HOSTS).`,
        { details: { field, host: refusal.host } },
      );
    }
  }

  /**
   * Refuses, when it is saved, a URL an organization sets whose host is plainly not public: a
   * literal internal address in any spelling, or a loopback name such as `localhost`. Names that
   * only resolve to internal addresses are caught when connecting, since DNS can change.
   */
  checkConfiguredUrl(value: string, field: string): void {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new AppError('url_refused', `${field} is not a valid URL.`, { param: field });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new AppError('url_refused', `${field} must be an http:// or https:// URL.`, { param: field });
    const host = normalizedHost(url.hostname);
    if (this.allowsName(host)) return;
    const refusal =
      isIP(host) !== 0 ? this.refusalFor(host, host) : isLoopbackName(host) ? new DestinationRefused(host, 'loopback') : undefined;
    if (refusal === undefined) return;
    const what = refusal.reason === 'this server' ? "this server's own address" : `a ${refusal.reason} address`;
    throw new AppError(
      'url_refused',
      `${field} points to ${url.hostname}, ${what}; an organization's URLs must reach public addresses (an operator can allow a host with OUTBOUND_ALLOWED_HOSTS).`,
      {
        param: field,
      },
    );
  }

  /** Closes the pooled connections; for shutdown and tests. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
