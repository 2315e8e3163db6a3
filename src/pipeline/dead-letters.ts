import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Clock } from '../clock';
import type { Logger } from '../observability/log';
import { deadLettered } from '../observability/metrics';
import type { Tenant } from '../store/tenants';
import { unpackedFields } from '../engine/change-record';

/**
 * Change records Postgres refused for good. A batch that fails with such an
 * error is split until the refused records stand alone (see Flusher); each
 * lands here with its error and leaves the stream, so one bad record never
 * holds back the rest of its tenant's records. Nothing is lost: an admin
 * can read it, replay it once the cause is fixed, or discard it.
 */

/** A stream entry's field value, or one Postgres cannot store as text (it holds NUL) as base64 of its UTF-8. */
export type RecordValue = string | { base64: string };

/** A change record's fields in a form jsonb accepts, in the entry's order. */
export function encodeRecord(flat: string[]): Record<string, RecordValue> {
  const out: Record<string, RecordValue> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const v = flat[i + 1]!;
    out[safeText(flat[i]!)] = v.includes('\0') ? { base64: Buffer.from(v, 'utf8').toString('base64') } : v;
  }
  return out;
}

/** The stream entry's fields again, as the flusher reads them. */
export function decodeRecord(record: Record<string, RecordValue>): string[] {
  return Object.entries(record).flatMap(([k, v]) => [k, typeof v === 'string' ? v : Buffer.from(v.base64, 'base64').toString('utf8')]);
}

/** Field names never hold NUL (the scripts choose them); replace one rather than fail to keep the record. */
const safeText = (s: string) => s.replace(/\0/g, '\uFFFD');

/**
 * Whether retrying cannot make a write succeed: the data itself is refused.
 * Postgres classes 22 (data exception: out of range, bad encoding, NUL in
 * text), 23 (integrity) and 54 (program limit: an index row too large). A
 * foreign key violation (23503) is left out: the flusher's only foreign keys
 * name the tenant (locked for the batch) and webhook endpoints, so one comes
 * from a concurrent delete and the next attempt, reading afresh, succeeds.
 * Everything else (connections, serialization failures, deadlocks, a server
 * shutting down, a bug in our SQL) is retried as before, never dead-lettered.
 */
export function isPermanent(err: unknown): boolean {
  if (err instanceof UnreadableRecord) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || code.length !== 5) return false;
  if (code === '23503') return false;
  return code.startsWith('22') || code.startsWith('23') || code.startsWith('54');
}

/** A change record the flusher cannot parse (it can never be written either). */
export class UnreadableRecord extends Error {}

/** The error as stored and shown: Postgres's message and detail, bounded. */
export function describeError(err: unknown): { message: string; sqlstate: string | null } {
  const e = err as { message?: unknown; detail?: unknown; code?: unknown };
  const detail = typeof e.detail === 'string' && e.detail ? ` (${e.detail})` : '';
  const message = safeText(`${String(e.message ?? err)}${detail}`).slice(0, 2000);
  return { message, sqlstate: typeof e.code === 'string' ? e.code : null };
}

export interface DeadLetterRow {
  id: string;
  stream_id: string;
  record: Record<string, RecordValue>;
  error: string;
  sqlstate: string | null;
  first_failed_at: Date;
  last_failed_at: Date;
  replays: number;
}

const DEAD_LETTER_COLS = 'id, stream_id, record, error, sqlstate, first_failed_at, last_failed_at, replays';

export class DeadLetters {
  constructor(
    private readonly db: Pool,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /**
   * Keep a refused record (before its entry is acknowledged). The same entry
   * again (a crash before the acknowledgement) updates the row: the first
   * failure time stays.
   */
  async add(t: Tenant, streamId: string, flat: string[], err: unknown): Promise<void> {
    const { message, sqlstate } = describeError(err);
    const now = new Date(this.clock.now());
    await this.db.query(
      `INSERT INTO dead_letters (id, tenant_id, stream_id, record, error, sqlstate, first_failed_at, last_failed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (tenant_id, stream_id) DO UPDATE SET error = excluded.error, sqlstate = excluded.sqlstate, last_failed_at = excluded.last_failed_at`,
      [randomUUID(), t.id, streamId, JSON.stringify(encodeRecord(unpackedFields(flat))), message, sqlstate, now],
    );
    deadLettered.inc();
    this.log.error('flusher dead-lettered a change record Postgres refused', {
      tenant: t.id, customerId: t.customerId, streamId, err: message, sqlstate,
    });
  }

  /** Records waiting, over every tenant (for /readyz). */
  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM dead_letters');
    return rows[0]!.n;
  }

  async get(tenantId: string, id: string): Promise<DeadLetterRow | null> {
    const { rows } = await this.db.query<DeadLetterRow>(`SELECT ${DEAD_LETTER_COLS} FROM dead_letters WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return rows[0] ?? null;
  }

  /** A page of a tenant's dead letters, newest first. */
  async list(tenantId: string, limit: number, skip: number): Promise<DeadLetterRow[]> {
    const { rows } = await this.db.query<DeadLetterRow>(
      `SELECT ${DEAD_LETTER_COLS} FROM dead_letters WHERE tenant_id = $1 ORDER BY first_failed_at DESC, id LIMIT $2 OFFSET $3`,
      [tenantId, limit, skip],
    );
    return rows;
  }

  /** Discard dead letters by id (their records are never written): the ids that were there. */
  async discard(tenantId: string, ids: string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('DELETE FROM dead_letters WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id', [tenantId, ids]);
    return rows.map((r) => r.id);
  }

  /** A replay succeeded: the record is in Postgres now. */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.db.query('DELETE FROM dead_letters WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  }

  /** A replay failed again: keep the new error. */
  async failedAgain(tenantId: string, id: string, err: unknown): Promise<DeadLetterRow | null> {
    const { message, sqlstate } = describeError(err);
    const { rows } = await this.db.query<DeadLetterRow>(
      `UPDATE dead_letters SET error = $3, sqlstate = $4, last_failed_at = $5, replays = replays + 1
       WHERE tenant_id = $1 AND id = $2 RETURNING ${DEAD_LETTER_COLS}`,
      [tenantId, id, message, sqlstate, new Date(this.clock.now())],
    );
    return rows[0] ?? null;
  }
}
