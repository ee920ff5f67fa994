import { describe, expect, it } from 'vitest';
import { createAjv } from './create-ajv.js';
import { validatorOnFirstUse } from './validator-on-first-use.js';

const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };

describe('a validator compiled on first use', () => {
  it('compiles once, at its first call, and reports each call as Ajv does', () => {
    let compilations = 0;
    const validate = validatorOnFirstUse(() => {
      compilations += 1;
      return createAjv().compile<{ name: string }>(schema);
    });
    expect(compilations).toBe(0);
    expect(validate({ name: 7 })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/name', keyword: 'type' });
    expect(validate({ name: 'Ada' })).toBe(true);
    expect(validate.errors).toBeNull();
    validate.compile();
    expect(compilations).toBe(1);
  });

  it('fails at compile() on a schema Ajv refuses, before any data reaches it', () => {
    const validate = validatorOnFirstUse(() => createAjv().compile({ type: 'no-such-type' }));
    expect(() => validate.compile()).toThrow(/no-such-type|type must be/);
  });
});
