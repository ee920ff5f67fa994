/**
 * Encryption of secrets at rest (provider API keys in organization settings), and keyed digests
 * (learners' pseudonyms). Encryption is AES-256-GCM with a
 * fresh IV per value, stored as `v1:<iv>:<tag>:<ciphertext>` in base64url. The key comes from
 * MERINO_SECRET_KEY, or from a key file created once in the data folder. Several processes
 * sharing one PostgreSQL must share MERINO_SECRET_KEY.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors/app-error.js';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const FORMAT = 'v1';
export const SECRET_KEY_FILE_NAME = 'secret.key';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Any text of 16+ characters works as MERINO_SECRET_KEY; it is stretched to a 256-bit key. */
  static fromPassphrase(passphrase: string): SecretBox {
    return new SecretBox(createHash('sha256').update(passphrase, 'utf8').digest());
  }

  /** Reads the key file in the data folder, creating it (readable by its owner only) on first use. */
  static fromKeyFile(dataDirectory: string): SecretBox {
    const keyPath = path.join(dataDirectory, SECRET_KEY_FILE_NAME);
    fs.mkdirSync(dataDirectory, { recursive: true });
    try {
      fs.writeFileSync(keyPath, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return SecretBox.fromPassphrase(fs.readFileSync(keyPath, 'utf8').trim());
  }

  /**
   * A stable keyed digest of `text` for `purpose` (hex): the same input gives the same digest on
   * every process sharing the key, and nobody without the key can tell which input gave it.
   */
  keyedDigest(purpose: string, text: string): string {
    return createHmac('sha256', this.key).update(purpose).update('\0').update(text).digest('hex');
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
  }

  decrypt(sealed: string): string {
    const [format, iv, tag, ciphertext] = sealed.split(':');
    if (format !== FORMAT || !iv || !tag || ciphertext === undefined)
      throw new AppError('internal_error', 'A stored secret is unreadable.');
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // Wrong MERINO_SECRET_KEY, or the value was tampered with: say so without details.
      throw new AppError('internal_error', "A stored secret cannot be decrypted with this server's secret key.");
    }
  }
}
