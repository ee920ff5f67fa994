/**
 * STORAGE_URL and the storage limits are checked when settings load: a bad value stops start-up
 * with a message naming the variable and the rule, and never echoes what could be a secret. The
 * default driver follows the store: `postgres` with DATABASE_URL, `local` without.
 */
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../src/config/settings.js';
import { SettingsError } from '../src/config/settings-error.js';
import { storageUrlFor } from '../src/blobs/open-blob-storage.js';

function load(environment: Record<string, string>) {
  return loadSettings({ DATA_DIR: '/tmp/merino-settings-test', ...environment });
}

function refusal(environment: Record<string, string>): string {
  try {
    load(environment);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error('the settings were accepted');
}

describe('storage settings', () => {
  it('defaults to postgres storage with DATABASE_URL and local storage without, with the documented limits', () => {
    const plain = load({});
    expect(storageUrlFor(plain, 'sqlite')).toBe('local');
    expect(storageUrlFor(plain, 'postgres')).toBe('postgres');
    expect(plain).toMatchObject({
      storageChunkBytes: 1_048_576,
      storageS3PartBytes: 8_388_608,
      storageS3PartsInFlight: 4,
      storageS3TimeoutMilliseconds: 30_000,
      ingestionInWeb: true,
    });
    expect(storageUrlFor(load({ STORAGE_URL: 'local' }), 'postgres')).toBe('local');
    const s3 = 's3://merino-files/site-a?endpoint=http://127.0.0.1:9000&region=eu-west-1&path_style=true';
    expect(storageUrlFor(load({ STORAGE_URL: s3 }), 'sqlite')).toBe(s3);
    expect(load({ INGESTION_IN_WEB: 'false' }).ingestionInWeb).toBe(false);
  });

  it('refuses unknown drivers, credentials in the URL, bad buckets and endpoints, naming the rule without echoing the value', () => {
    expect(refusal({ STORAGE_URL: 'ftp://files' })).toMatch(/STORAGE_URL.*only s3:\/\/ URLs/);
    const withKey = refusal({ STORAGE_URL: 's3://AKIASECRET:hunter2@bucket/x' });
    expect(withKey).toMatch(/STORAGE_URL.*credentials do not belong in the URL/);
    expect(withKey).not.toContain('hunter2');
    expect(refusal({ STORAGE_URL: 's3://Bad_Bucket/x' })).toMatch(/bucket name/);
    expect(refusal({ STORAGE_URL: 's3://bucket/a%2F..%2Fb' })).toMatch(/STORAGE_URL.*unsafe segment/);
    expect(refusal({ STORAGE_URL: 's3://bucket/x?endpoint=file:///etc' })).toMatch(/endpoint must be an http/);
    expect(refusal({ STORAGE_URL: 's3://bucket/x?path_style=maybe' })).toMatch(/path_style must be true or false/);
    expect(refusal({ INGESTION_IN_WEB: 'sometimes' })).toMatch(/INGESTION_IN_WEB.*true or false/);
  });

  it('refuses limits outside their bounds', () => {
    expect(refusal({ STORAGE_S3_PART_BYTES: '1048576' })).toMatch(/STORAGE_S3_PART_BYTES/);
    expect(refusal({ STORAGE_CHUNK_BYTES: '100' })).toMatch(/STORAGE_CHUNK_BYTES/);
    expect(refusal({ STORAGE_S3_PARTS_IN_FLIGHT: '0' })).toMatch(/STORAGE_S3_PARTS_IN_FLIGHT/);
    expect(refusal({ STORAGE_S3_TIMEOUT_MS: '10' })).toMatch(/STORAGE_S3_TIMEOUT_MS/);
  });
});
