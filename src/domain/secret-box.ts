import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Credentials at rest (webhook secrets, message channels): AES-256-GCM under
 * the instance's key. A sealed value names the key that sealed it (the first
 * 8 hex digits of its SHA-256), so values sealed under a previous key stay
 * readable while `SECRETS_KEY` is rotated (docs/security.md).
 */
const PREFIX = 'enc:v1:';

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly primary: { id: string; key: Buffer };

  /** `keys[0]` seals; every key opens what it sealed. Each is 32 bytes. */
  constructor(keys: Buffer[]) {
    if (keys.length === 0 || keys.some((k) => k.length !== 32)) throw new Error('a secrets key is 32 bytes');
    this.keys = new Map(keys.map((k) => [keyId(k), k]));
    this.primary = { id: keyId(keys[0]!), key: keys[0]! };
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.primary.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.primary.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plain text of a sealed value; throws on a value sealed under an unknown key or altered. */
  open(sealed: string): string {
    if (!SecretBox.isSealed(sealed)) throw new Error('not a sealed secret');
    const [id, data] = sealed.slice(PREFIX.length).split(':');
    const key = this.keys.get(id ?? '');
    if (!key) throw new Error(`sealed under an unknown secrets key (${id})`);
    const raw = Buffer.from(data ?? '', 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** Whether a sealed value was sealed under the current key (else re-seal it when rotating). */
  current(sealed: string): boolean {
    return sealed.startsWith(`${PREFIX}${this.primary.id}:`);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** A key from its text form: 64 hex digits, or base64 of 32 bytes. */
export function parseSecretsKey(text: string, name = 'SECRETS_KEY'): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, as 64 hex digits or base64 (openssl rand -hex 32)`);
  return key;
}
