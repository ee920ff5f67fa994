/**
 * Proves passwords.ts: a hash is made at N = 2^PASSWORD_HASH_COST and says so, it verifies at
 * whatever cost it was made, and needsRehash tells a hash of another cost or form from one of this cost.
 */
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../config/settings.js';
import { hashPassword, needsRehash, verifyAgainstDecoy, verifyPassword } from './passwords.js';

describe('password hashes', () => {
  it('are made at 2^15 unless PASSWORD_HASH_COST says otherwise', async () => {
    const defaultCost = loadSettings({}).passwordHashCost;
    expect(defaultCost).toBe(15);
    expect(await hashPassword('a password', defaultCost)).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hashPassword('a password', 10)).toMatch(/^scrypt\$1024\$8\$1\$/);
  });

  it('verify at the cost they were made at, whatever the cost is now', async () => {
    const cheap = await hashPassword('correct horse', 10);
    const dear = await hashPassword('correct horse', 12);
    for (const stored of [cheap, dear]) {
      expect(await verifyPassword('correct horse', stored)).toBe(true);
      expect(await verifyPassword('correct horsE', stored)).toBe(false);
    }
    expect(await verifyPassword('correct horse', 'bcrypt$whatever')).toBe(false);
  });

  it('need storing again only when made at another cost or in another form', async () => {
    const stored = await hashPassword('correct horse', 10);
    expect(needsRehash(stored, 10)).toBe(false);
    expect(needsRehash(stored, 11)).toBe(true);
    expect(needsRehash(stored.replace('$8$1$', '$16$1$'), 10)).toBe(true);
    expect(needsRehash('bcrypt$10$abc', 10)).toBe(true);
  });

  it('have a decoy per cost for unknown accounts, which no password matches', async () => {
    await expect(verifyAgainstDecoy('anything', 10)).resolves.toBeUndefined();
    await expect(verifyAgainstDecoy('anything', 11)).resolves.toBeUndefined();
  });
});
