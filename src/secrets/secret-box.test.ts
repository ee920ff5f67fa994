/** Proves secrets round-trip, are unreadable without the right key, detect tampering, and that the key file is created once, private. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { SECRET_KEY_FILE_NAME, SecretBox } from './secret-box.js';

describe('the secret box', () => {
  it('decrypts what it encrypted, and never stores the plaintext', () => {
    const box = SecretBox.fromPassphrase('a passphrase of sixteen+ chars');
    const sealed = box.encrypt('sk-live-secret-value');
    expect(sealed).not.toContain('sk-live-secret-value');
    expect(sealed.startsWith('v1:')).toBe(true);
    expect(box.decrypt(sealed)).toBe('sk-live-secret-value');
  });

  it('gives a different ciphertext each time for the same secret', () => {
    const box = SecretBox.fromPassphrase('a passphrase of sixteen+ chars');
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it('refuses to decrypt with another key, or a tampered value, with a safe AppError', () => {
    const sealed = SecretBox.fromPassphrase('the first passphrase!!').encrypt('sk-secret');
    const other = SecretBox.fromPassphrase('the second passphrase!');
    expect(() => other.decrypt(sealed)).toThrow(AppError);
    const parts = sealed.split(':');
    const tampered = [...parts.slice(0, 3), Buffer.from('sk-other').toString('base64url')].join(':');
    expect(() => SecretBox.fromPassphrase('the first passphrase!!').decrypt(tampered)).toThrow(/cannot be decrypted/);
    expect(() => other.decrypt('not-a-sealed-value')).toThrow(/unreadable/);
  });

  it('creates the key file once, readable by its owner only, and reuses it', () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'merino-secret-'));
    try {
      const sealed = SecretBox.fromKeyFile(directory).encrypt('kept across restarts');
      const keyPath = path.join(directory, SECRET_KEY_FILE_NAME);
      expect(fs.statSync(keyPath).mode & 0o777).toBe(0o600);
      const firstKey = fs.readFileSync(keyPath, 'utf8');
      expect(SecretBox.fromKeyFile(directory).decrypt(sealed)).toBe('kept across restarts');
      expect(fs.readFileSync(keyPath, 'utf8')).toBe(firstKey);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
