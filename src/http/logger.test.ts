// Proves the logger's two guards one rule at a time: maskQueryValues keeps a query parameter's name only when it looks like a name (length, characters, no token prefix) and never a value; redactSecrets censors every credential-named key in any spelling, at every depth it inspects, replaces what lies deeper, and leaves errors and class instances to pino.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, maskQueryValues, redactSecrets } from './logger.js';

describe('maskQueryValues', () => {
  it('leaves a URL without a query as it is', () => {
    expect(maskQueryValues('/api/me')).toBe('/api/me');
  });

  it('masks every value and keeps the names and their order', () => {
    expect(maskQueryValues('/api/assistants?limit=5&offset=10&search=cells')).toBe('/api/assistants?limit=…&offset=…&search=…');
  });

  it('masks a parameter without a value as if it had one, and drops empty pairs', () => {
    expect(maskQueryValues('/x?flag&&other=1&')).toBe('/x?flag=…&other=…');
  });

  it('keeps only the part before the first "=" as the name', () => {
    expect(maskQueryValues('/x?a=b=c')).toBe('/x?a=…');
  });

  it.each([
    ['one letter', 'a', true],
    ['an underscore first', '_private', true],
    ['letters, digits, dot, dash, underscore', 'page.size-2_b', true],
    ['32 characters', `a${'b'.repeat(31)}`, true],
    ['33 characters', `a${'b'.repeat(32)}`, false],
    ['a digit first', '1abc', false],
    ['a dot first', '.abc', false],
    ['a dash first', '-abc', false],
    ['a space', 'a%20b', false],
    ['a colon', 'a:b', false],
    ['a session-token prefix', 'mrs_abc', false],
    ['an API-key prefix', 'mrk_abc', false],
    ['a name that merely contains a token prefix', 'xmrs_abc', true],
    ['the prefix letters without the underscore', 'mrsabc', true],
    ['another mr prefix', 'mrt_abc', true],
    ['an empty name', '', false],
  ])('decides on a name with %s (loggable: %s)', (_description, name, loggable) => {
    expect(maskQueryValues(`/x?${name}=secret`)).toBe(`/x?${loggable ? name : '…'}=…`);
  });

  it('judges every name on its whole text, not on a prefix or suffix that looks right', () => {
    expect(maskQueryValues('/x?abc:def=1')).toBe('/x?…=…');
    expect(maskQueryValues('/x?:abc=1')).toBe('/x?…=…');
  });
});

describe('redactSecrets', () => {
  it.each([
    'authorization',
    'Proxy-Authorization',
    'cookie',
    'Set-Cookie',
    'x-api-key',
    'apiKey',
    'password',
    'passphrase',
    'token',
    'access_token',
    'refreshToken',
    'id_token',
    'secret',
    'client_secret',
    'key',
    'secretKey',
    'private_key',
  ])('censors a value under "%s"', (key) => {
    expect(redactSecrets({ [key]: 'the-secret', kept: 'visible' })).toEqual({ [key]: '[redacted]', kept: 'visible' });
  });

  it.each(['keyboard', 'monkey', 'tokens', 'author', 'cookies_enabled', 'passwordHint'])(
    'keeps a value under "%s", which only resembles a credential name',
    (key) => {
      expect(redactSecrets({ [key]: 'shown' })).toEqual({ [key]: 'shown' });
    },
  );

  it('returns primitives and null as they are', () => {
    expect(redactSecrets('text')).toBe('text');
    expect(redactSecrets(42)).toBe(42);
    expect(redactSecrets(null)).toBe(null);
    expect(redactSecrets(undefined)).toBe(undefined);
  });

  it('censors inside arrays and objects, without changing the original', () => {
    const original = { list: [{ token: 'a' }, { name: 'b' }], nested: { deeper: { password: 'c' } } };
    expect(redactSecrets(original)).toEqual({
      list: [{ token: '[redacted]' }, { name: 'b' }],
      nested: { deeper: { password: '[redacted]' } },
    });
    expect(original.list[0]!.token).toBe('a');
  });

  it('censors an object without a prototype too', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { token: 'x', name: 'y' });
    expect(redactSecrets(bare)).toEqual({ token: '[redacted]', name: 'y' });
  });

  it('passes errors and other class instances through untouched, for pino to serialize', () => {
    const error = new Error('boom');
    const date = new Date(0);
    const logged = redactSecrets({ err: error, at: date }) as Record<string, unknown>;
    expect(logged.err).toBe(error);
    expect(logged.at).toBe(date);
  });

  it('inspects eight levels and replaces whatever lies deeper with "[too deep]"', () => {
    const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { inner: nest(levels - 1, leaf) });
    const unwrap = (value: unknown, levels: number): unknown =>
      levels === 0 ? value : unwrap((value as { inner: unknown }).inner, levels - 1);
    expect(unwrap(redactSecrets(nest(7, { token: 'x', kept: 1 })), 7)).toEqual({ token: '[redacted]', kept: 1 });
    expect(unwrap(redactSecrets(nest(8, { token: 'x' })), 8)).toBe('[too deep]');
    expect(unwrap(redactSecrets(nest(8, 'plain')), 8)).toBe('plain');
    expect(unwrap(redactSecrets(nest(7, [['x']])), 7)).toEqual(['[too deep]']);
  });
});

describe('createLogger', () => {
  it('writes every logged object through the redaction, and request lines with masked query values', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info({ options: { headers: { authorization: 'Bearer mrs_secretvalue' } }, kept: 'visible' }, 'library options');
    logger.info({ req: { id: 'r1', method: 'GET', url: '/api/me?token=mrs_secretvalue', ip: '127.0.0.1' } }, 'incoming request');
    const [options, requestLine] = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(options!.options.headers.authorization).toBe('[redacted]');
    expect(options!.kept).toBe('visible');
    expect(requestLine!.req).toEqual({ id: 'r1', method: 'GET', url: '/api/me?token=…', remoteAddress: '127.0.0.1' });
    expect(lines.join('')).not.toContain('mrs_secretvalue');
  });
});
