/**
 * An API key as `GET /api/api-keys` lists it (src/auth/api-key-service.ts): never the key itself,
 * only its first characters. The answer to creating one adds the whole key, that once.
 */
export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  trusted_front_end: boolean;
}

export interface CreatedApiKey extends ApiKey {
  key: string;
}

/** What `POST /api/api-keys` accepts from this page (src/auth/api-key-schemas.ts). */
export interface NewApiKey {
  name: string;
  expires_at?: string;
  trusted_front_end?: boolean;
}

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
