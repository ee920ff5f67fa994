/**
 * What the API keys page works out about keys (the shapes are the API's: $lib/api/api-keys):
 * the expiry choices and whether a key has expired.
 */
import type { ApiKey } from '$lib/api/api-keys';

/** The expiry choices the form offers, in days; 0 is a key that works until it is revoked. */
export const EXPIRY_DAYS_CHOICES = [0, 7, 30, 90, 365] as const;

/** The timestamp `expires_at` takes for a key that expires this many days from now, or undefined for never. */
export function expiryAfterDays(days: number, now: Date = new Date()): string | undefined {
  if (days <= 0) return undefined;
  return new Date(now.getTime() + days * 24 * 60 * 60 * 1000).toISOString();
}

export function hasExpired(key: ApiKey, now: number = Date.now()): boolean {
  return key.expires_at !== null && Date.parse(key.expires_at) <= now;
}
