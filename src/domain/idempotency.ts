import { hash } from 'node:crypto';
import { derivedId } from './ids';

/** Number of idempotency buckets per tenant. */
export const IDEMPOTENCY_BUCKETS = 4096;

/**
 * A used Idempotency-Key is stored as one 64-bit integer in one of the
 * tenant's bucket sets. Small integer sets use Redis's compact intset
 * encoding (8 bytes a member), so a stored key costs ~10 bytes instead of a
 * whole Redis key. Keys are scoped by user and metric, as Trophy's are.
 * A false match needs a 64-bit hash collision within one tenant.
 */
export interface IdempotencySlot {
  bucket: number;
  member: string;
  /** Deterministic event id: a replay reports the id of the original event. */
  eventId: string;
}

export function idempotencySlot(userId: string, metricId: string, key: string): IdempotencySlot {
  const h = hash('sha256', `${userId}\0${metricId}\0${key}`, 'buffer');
  return {
    member: h.readBigInt64BE(0).toString(),
    bucket: h.readUInt16BE(8) % IDEMPOTENCY_BUCKETS,
    eventId: derivedId('event', userId, metricId, key),
  };
}
