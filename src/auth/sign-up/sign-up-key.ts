/**
 * Organizations' sign-up keys (docs/sign-up.md). The server makes them, never the admin: the key
 * alone decides which organization a new person joins, so it must be unguessable and unique, and
 * a key an admin chose could collide with another organization's and tell them that one. A key is
 * 20 characters of Crockford's base32 (100 bits) in groups of four, easy to read aloud or copy
 * from a slide; what people type is normalized (case, spaces, hyphens, O for 0, I and L for 1)
 * before it is hashed, and only the SHA-256 is stored, as for API keys (tokens.ts).
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const KEY_CHARACTERS = 20;
const GROUP_CHARACTERS = 4;

export function generateSignUpKey(): string {
  // 256 is a multiple of 32, so each byte's low five bits pick a character uniformly.
  const characters = [...randomBytes(KEY_CHARACTERS)].map((byte) => ALPHABET[byte % ALPHABET.length]!);
  const groups: string[] = [];
  for (let start = 0; start < characters.length; start += GROUP_CHARACTERS)
    groups.push(characters.slice(start, start + GROUP_CHARACTERS).join(''));
  return groups.join('-');
}

/** The key as typed, reduced to the characters that carry it. */
function normalizeSignUpKey(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
}

export function hashSignUpKey(typed: string): string {
  return createHash('sha256').update(normalizeSignUpKey(typed), 'utf8').digest('hex');
}
