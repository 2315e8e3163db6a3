import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret, shown once at creation (and rotation). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

const hmac = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('base64');

/**
 * The headers that authenticate one attempt. `X-Trophy-Signature` is
 * Trophy's (HMAC of the raw body); Laurel's own signature also covers the
 * event id and the attempt's timestamp, so a captured request cannot be
 * replayed later or under another id.
 */
export function signatureHeaders(secret: string, eventId: string, timestampSec: number, body: string): Record<string, string> {
  return {
    'X-Trophy-Signature': hmac(secret, body),
    'X-Laurel-Event-Id': eventId,
    'X-Laurel-Timestamp': String(timestampSec),
    'X-Laurel-Signature': hmac(secret, `${eventId}.${timestampSec}.${body}`),
  };
}
