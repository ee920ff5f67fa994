/**
 * The tool's own RSA key pair for LTI 1.3: it signs deep-linking responses, and platforms fetch
 * its public half from `GET /lti/1.3/jwks`. Generated once per installation and kept in the store
 * (the private key encrypted with the secret box), so every process signs with the same key.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type CryptoKey, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../secrets/secret-box.js';
import { findToolKeys, insertToolKeyIfNone } from '../store/lti-launches-repository.js';
import type { Database } from '../store/schema.js';

export const TOOL_KEY_ALGORITHM = 'RS256';

export interface ToolSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export class LtiToolKeys {
  private signing: Promise<ToolSigningKey> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly secrets: SecretBox,
  ) {}

  private async ensureKey(): Promise<void> {
    if ((await findToolKeys(this.db)).length > 0) return;
    const { publicKey, privateKey } = await generateKeyPair(TOOL_KEY_ALGORITHM, { modulusLength: 2048, extractable: true });
    const kid = randomUUID();
    const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: TOOL_KEY_ALGORITHM, use: 'sig' };
    await insertToolKeyIfNone(this.db, {
      kid,
      publicJwk: JSON.stringify(publicJwk),
      privateKeyEncrypted: this.secrets.encrypt(await exportPKCS8(privateKey)),
    });
  }

  /** The public keys, as a JWKS document. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.ensureKey();
    return { keys: (await findToolKeys(this.db)).map((key) => JSON.parse(key.publicJwk) as JWK) };
  }

  /** The key the tool signs with: the oldest stored, so processes that raced to create one still agree. */
  async signingKey(): Promise<ToolSigningKey> {
    this.signing ??= (async () => {
      await this.ensureKey();
      const [first] = await findToolKeys(this.db);
      return { kid: first!.kid, privateKey: await importPKCS8(this.secrets.decrypt(first!.privateKeyEncrypted), TOOL_KEY_ALGORITHM) };
    })();
    try {
      return await this.signing;
    } catch (error) {
      this.signing = undefined;
      throw error;
    }
  }
}
