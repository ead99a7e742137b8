import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
// Binds a sealed value to its use: a ciphertext copied into another column does not open.
const AAD = Buffer.from('petstore webhook signing secret');

/**
 * Seals webhook signing secrets for storage (AES-256-GCM). A secret must be readable to sign, so it
 * cannot be hashed like an API key; it is encrypted under a key held apart from the rows:
 * WEBHOOK_SECRET_KEY when configured (then a copy of the database alone reveals no secret), else a
 * random key created once per database in `meta`. The first key seals; every key opens what it
 * sealed (each sealed value names its key), so a key can be added or replaced without losing the
 * secrets sealed before. Sealed form: `v1.<key id>.<iv>.<ciphertext+tag>`.
 */
export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly #sealing: { id: string; key: Buffer };

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0 || keys.some((k) => k.length !== 32)) throw new Error('SecretBox needs one or more 32-byte keys');
    this.#keys = new Map(keys.map((key) => [keyId(key), key]));
    this.#sealing = { id: keyId(keys[0]), key: keys[0] };
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#sealing.key, iv).setAAD(AAD);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.#sealing.id, iv.toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Throws when the value was sealed under a key this box does not hold, or was altered. */
  open(sealed: string): string {
    const [version, id, iv, body] = sealed.split('.');
    const key = this.#keys.get(id);
    if (version !== VERSION || key === undefined) throw new Error(`a webhook secret is sealed under key ${id}, which is not configured (WEBHOOK_SECRET_KEY)`);
    const data = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url')).setAAD(AAD);
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
  }
}

/** Names a key without revealing it: the first 8 hex digits of its SHA-256. */
function keyId(key: Buffer): string {
  return hash('sha256', key, 'hex').slice(0, 8);
}
