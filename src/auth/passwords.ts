/**
 * Password hashing with scrypt. The stored form names its parameters
 * (`scrypt$<N>$<r>$<p>$<salt>$<hash>`), so PASSWORD_HASH_COST can be raised without breaking old
 * hashes: each is checked with its own parameters and stored again at the new cost at its next
 * login (see needsRehash).
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '../errors/app-error.js';

const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** How passwords are chosen and stored: PASSWORD_MIN_LENGTH, and PASSWORD_HASH_COST as scrypt's N = 2^cost. */
export interface PasswordRules {
  lengthMinimum: number;
  hashCost: number;
}

export function passwordRulesOf(settings: { passwordLengthMinimum: number; passwordHashCost: number }): PasswordRules {
  return { lengthMinimum: settings.passwordLengthMinimum, hashCost: settings.passwordHashCost };
}

function derive(password: string, salt: Buffer, options: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>>): Promise<Buffer> {
  const maxmem = 256 * options.N * options.r + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** Hashes with scrypt at N = 2^hashCost (PASSWORD_HASH_COST). */
export async function hashPassword(password: string, hashCost: number): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const cost = 2 ** hashCost;
  const key = await derive(password, salt, { N: cost, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether a stored hash was made with other parameters than hashPassword's at hashCost, so a login should store it again. */
export function needsRehash(stored: string, hashCost: number): boolean {
  const [scheme, cost, blockSize, parallelism] = stored.split('$');
  return scheme !== 'scrypt' || Number(cost) !== 2 ** hashCost || Number(blockSize) !== BLOCK_SIZE || Number(parallelism) !== PARALLELISM;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, cost, blockSize, parallelism, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !cost || !blockSize || !parallelism || !salt || !expected) return false;
  const expectedKey = Buffer.from(expected, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(cost),
    r: Number(blockSize),
    p: Number(parallelism),
  });
  return key.length === expectedKey.length && timingSafeEqual(key, expectedKey);
}

/** One decoy per cost, made on first use: a process normally has one cost, tests may start several. */
const decoyHashes = new Map<number, Promise<string>>();

/** Spends the time a real check would, so a login for an unknown email is not told apart by timing. */
export async function verifyAgainstDecoy(password: string, hashCost: number): Promise<void> {
  let decoyHash = decoyHashes.get(hashCost);
  if (decoyHash === undefined) {
    decoyHash = hashPassword(randomBytes(16).toString('hex'), hashCost);
    decoyHashes.set(hashCost, decoyHash);
  }
  await verifyPassword(password, await decoyHash);
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** The rule every chosen password follows, as for accounts an admin creates: at least PASSWORD_MIN_LENGTH characters. */
export function requirePasswordLength(password: string, lengthMinimum: number, param = 'password'): void {
  if (password.length < lengthMinimum) {
    throw new AppError('weak_password', `The password must be at least ${lengthMinimum} characters.`, { param });
  }
}
