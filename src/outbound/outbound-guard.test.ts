/**
 * Proves the outbound guard over real sockets: a guarded fetch never connects to loopback in any
 * spelling, to a name that resolves there (through /etc/hosts or an injected resolver), nor
 * through a redirect; DNS rebinding (public when first asked, 127.0.0.1 when connecting) is
 * refused at connect time; OUTBOUND_ALLOWED_HOSTS lets named hosts and addresses through; the
 * refusal names the field and the host, never the addresses it resolved to; and the save-time
 * check refuses literal internal addresses and `localhost`, naming the field.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { OutboundGuard, type HostResolver, type ResolvedAddress } from './outbound-guard.js';
import { outboundRefusalIn } from '../pipeline/upstream/outbound-fetch.js';
import { possiblyUnset } from '../../test/support/possibly-unset.js';

const FIELD = 'kb_server.url';
/** A public address no test connects to: answers with it are only ever looked at, never dialled. */
const PUBLIC_ADDRESS = '93.184.215.14';

interface RecordingServer {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function startServer(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<RecordingServer> {
  const hits: string[] = [];
  const server = http.createServer((request, response) => {
    hits.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A resolver that answers from a table, like a DNS server the attacker runs. */
function resolverFrom(table: Record<string, string[] | (() => string[])>): HostResolver {
  return async (hostname) => {
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`not found: ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'function' ? entry() : entry;
    return addresses.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function lookupOnce(guard: OutboundGuard, hostname: string): Promise<ResolvedAddress[]> {
  return new Promise((resolve, reject) => {
    guard.lookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses as ResolvedAddress[])));
  });
}

describe('the guarded fetch', () => {
  let target: RecordingServer;
  let redirector: RecordingServer;

  beforeAll(async () => {
    target = await startServer((_request, response) => response.end('reached'));
    redirector = await startServer((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${target.port}/after-redirect` });
      response.end();
    });
  });

  beforeEach(() => {
    target.hits.length = 0;
    redirector.hits.length = 0;
  });

  afterAll(async () => {
    await possiblyUnset(target)?.close();
    await possiblyUnset(redirector)?.close();
  });

  const guarded = (options: ConstructorParameters<typeof OutboundGuard>[0] = { allowedHosts: [] }) =>
    new OutboundGuard(options).fetchFor(FIELD);

  it.each([['127.0.0.1'], ['2130706433'], ['0x7f.1'], ['017700000001'], ['127.1'], ['[::ffff:127.0.0.1]'], ['localhost']])(
    'refuses to connect to http://%s (loopback), and the server sees nothing',
    async (host) => {
      const error = await refusal(guarded()(`http://${host}:${target.port}/secret`));
      expect(error.code).toBe('upstream_refused');
      expect(error.status).toBe(502);
      expect(error.message).toContain(FIELD);
      expect(error.details).toMatchObject({ field: FIELD });
      expect(target.hits).toEqual([]);
    },
  );

  it('refuses a name that resolves to loopback, naming the name and never the address', async () => {
    const fetch = guarded({ allowedHosts: [], resolve: resolverFrom({ 'kb.attacker.test': ['127.0.0.1'] }) });
    const error = await refusal(fetch(`http://kb.attacker.test:${target.port}/`));
    expect(error.code).toBe('upstream_refused');
    expect(error.message).toContain('kb.attacker.test');
    expect(`${error.message} ${JSON.stringify(error.details)}`).not.toContain('127.0.0.1');
    expect(target.hits).toEqual([]);
  });

  it('refuses a name with any internal address among public ones', async () => {
    const fetch = guarded({ allowedHosts: [], resolve: resolverFrom({ 'mixed.test': [PUBLIC_ADDRESS, '127.0.0.1'] }) });
    expect((await refusal(fetch(`http://mixed.test:${target.port}/`))).code).toBe('upstream_refused');
    expect(target.hits).toEqual([]);
  });

  it('connects where the injected resolver says, so an allowed address is reached through a name', async () => {
    const fetch = guarded({ allowedHosts: ['127.0.0.1'], resolve: resolverFrom({ 'kb.resolved.test': ['127.0.0.1'] }) });
    const response = await fetch(`http://kb.resolved.test:${target.port}/through-resolver`);
    expect(await response.text()).toBe('reached');
    expect(target.hits).toEqual(['/through-resolver']);
  });

  it('lets an OUTBOUND_ALLOWED_HOSTS name through whatever it resolves to', async () => {
    const resolve = resolverFrom({ 'kb.campus.internal': ['127.0.0.1'] });
    const refused = await refusal(guarded({ allowedHosts: [], resolve })(`http://kb.campus.internal:${target.port}/`));
    expect(refused.code).toBe('upstream_refused');
    const response = await guarded({ allowedHosts: ['KB.Campus.Internal'], resolve })(`http://kb.campus.internal:${target.port}/allowed`);
    expect(response.status).toBe(200);
    expect(target.hits).toEqual(['/allowed']);
  });

  it('lets an allowed literal address through, in any spelling', async () => {
    const fetch = guarded({ allowedHosts: ['::ffff:7f00:1', '127.0.0.1'] });
    expect((await fetch(`http://127.0.0.1:${target.port}/literal`)).status).toBe(200);
    expect((await fetch(`http://2130706433:${target.port}/decimal`)).status).toBe(200);
    expect(target.hits).toEqual(['/literal', '/decimal']);
  });

  it('refuses a redirect to an internal address: every hop connects through the guard', async () => {
    // The first hop is an allowed name; the redirect points at an address nobody allowed.
    const fetch = guarded({ allowedHosts: ['front.allowed.test'], resolve: resolverFrom({ 'front.allowed.test': ['127.0.0.1'] }) });
    const error = await refusal(fetch(`http://front.allowed.test:${redirector.port}/start`));
    expect(error.code).toBe('upstream_refused');
    expect(redirector.hits).toEqual(['/start']);
    expect(target.hits).toEqual([]);
  });

  it('refuses what is not http(s)', async () => {
    expect((await refusal(guarded()('data:text/plain,hello'))).code).toBe('upstream_refused');
  });

  it('leaves a plain unreachable host an ordinary network error, not a refusal', async () => {
    const fetch = guarded({ allowedHosts: [], resolve: resolverFrom({}) });
    const error = await fetch('http://nowhere.invalid/').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    expect(outboundRefusalIn(error)).toBeUndefined();
  });
});

describe('the connect-time lookup', () => {
  it('defeats DNS rebinding: public when first asked, loopback when connecting is refused', async () => {
    let asked = 0;
    const guard = new OutboundGuard({
      allowedHosts: [],
      resolve: resolverFrom({ 'rebind.attacker.test': () => (asked++ === 0 ? [PUBLIC_ADDRESS] : ['127.0.0.1']) }),
    });
    expect(await lookupOnce(guard, 'rebind.attacker.test')).toEqual([{ address: PUBLIC_ADDRESS, family: 4 }]);
    await expect(lookupOnce(guard, 'rebind.attacker.test')).rejects.toThrow(/rebind\.attacker\.test/);
    expect(asked).toBe(2);
  });

  it("refuses this server's own addresses even when they are public", async () => {
    const guard = new OutboundGuard({
      allowedHosts: [],
      ownAddresses: [PUBLIC_ADDRESS],
      resolve: resolverFrom({ 'merino.example.org': [PUBLIC_ADDRESS] }),
    });
    await expect(lookupOnce(guard, 'merino.example.org')).rejects.toThrow(/this server/);
  });

  it('answers in the single-address form when not asked for all', async () => {
    const guard = new OutboundGuard({ allowedHosts: [], resolve: resolverFrom({ 'public.test': [PUBLIC_ADDRESS] }) });
    const answer = await new Promise<[string, number | undefined]>((resolve, reject) => {
      guard.lookup('public.test', {}, (error, address, family) => (error ? reject(error) : resolve([address as string, family])));
    });
    expect(answer).toEqual([PUBLIC_ADDRESS, 4]);
  });
});

describe('the save-time check', () => {
  const guard = new OutboundGuard({ allowedHosts: ['kb.campus.internal', '10.0.0.5'], ownAddresses: ['127.0.0.1', PUBLIC_ADDRESS] });

  const refusedAtSave = (url: string): AppError => {
    try {
      guard.checkConfiguredUrl(url, 'providers.openai.base_url');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return error as AppError;
    }
    throw new Error(`${url} was accepted`);
  };

  it.each([
    'http://127.0.0.1:9099/v1',
    'http://localhost:11434',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:8080/',
    'http://0.0.0.0:9099/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://10.1.2.3/',
    'http://192.168.0.10/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    `http://${PUBLIC_ADDRESS}/`,
  ])('refuses %s with a 400 naming the field', (url) => {
    const error = refusedAtSave(url);
    expect(error.code).toBe('url_refused');
    expect(error.status).toBe(400);
    expect(error.param).toBe('providers.openai.base_url');
    expect(error.message).toContain('providers.openai.base_url');
  });

  it.each(['https://api.openai.com/v1', 'http://kb.example.org:9090', 'http://kb.campus.internal:9090', 'http://10.0.0.5/'])(
    'accepts %s',
    (url) => {
      expect(() => guard.checkConfiguredUrl(url, 'kb_server.url')).not.toThrow();
    },
  );

  it('refuses what is not http(s)', () => {
    expect(refusedAtSave('file:///etc/passwd').code).toBe('url_refused');
  });
});
