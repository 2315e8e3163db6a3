import { createPrivateKey, sign } from 'node:crypto';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * A signed JWT: ES256 for Apple's provider tokens (the .p8 key; the
 * signature in JOSE's raw r||s form), RS256 for Google's OAuth assertions.
 */
export function signJwt(alg: 'ES256' | 'RS256', pem: string, header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const input = `${b64({ alg, typ: 'JWT', ...header })}.${b64(claims)}`;
  const key = createPrivateKey(pem);
  const sig = alg === 'ES256' ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', Buffer.from(input), key);
  return `${input}.${sig.toString('base64url')}`;
}

/** Whether a PEM holds a private key of the given kind (checked when a channel is saved). */
export function keyProblem(pem: string, type: 'ec' | 'rsa'): string | null {
  try {
    const k = createPrivateKey(pem);
    return k.asymmetricKeyType === type ? null : `must be an ${type === 'ec' ? 'EC (P-256)' : 'RSA'} private key`;
  } catch {
    return 'is not a PEM private key';
  }
}
