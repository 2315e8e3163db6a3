import type { Pool } from 'pg';
import type { Clock } from '../clock';
import { tx } from './db';
import type { AuditEntry } from '../wire/admin';

/** An entry as written: what the API shows, less what the table assigns (id, time). */
export type NewAuditEntry = Omit<AuditEntry, 'id' | 'time'>;

export interface AuditRow extends NewAuditEntry {
  id: string;
  at: Date;
}

export interface AuditFilter {
  tenantId?: string;
  resource?: string;
  keyId?: string;
  since?: Date;
  until?: Date;
  /** Entries strictly older than this one (a page's last). */
  before?: { at: Date; id: string };
  limit: number;
}

const DAY_MS = 86_400_000;
/** Postgres: "no partition of relation found for row". */
const NO_PARTITION = '23514';

/** `audit_log_y2026m03` for March 2026 (UTC). */
const partitionName = (year: number, month: number) => `audit_log_y${year}m${String(month + 1).padStart(2, '0')}`;
const PARTITION = /^audit_log_y(\d{4})m(\d{2})$/;

/**
 * The audit log's table: append-only (a trigger refuses updates and deletes),
 * in monthly partitions made when the first entry of a month comes, and
 * dropped whole once every entry in them is older than the retention.
 */
export class AuditLog {
  constructor(
    private readonly db: Pool,
    private readonly clock: Clock,
    private readonly retentionDays: number,
  ) {}

  async append(e: NewAuditEntry): Promise<void> {
    const at = new Date(this.clock.now());
    const insert = () =>
      this.db.query(
        `INSERT INTO audit_log (at, key_id, key_prefix, tenant_id, method, route, path, resource, resource_ids, action, status, changes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [at, e.keyId, e.keyPrefix, e.tenantId, e.method, e.route, e.path, e.resource, e.resourceIds, e.action, e.status, e.changes && JSON.stringify(e.changes)],
      );
    try {
      await insert();
    } catch (err) {
      if ((err as { code?: string }).code !== NO_PARTITION) throw err;
      await this.ensurePartition(at);
      await insert();
    }
  }

  async list(f: AuditFilter): Promise<AuditRow[]> {
    const { rows } = await this.db.query<{
      id: string; at: Date; key_id: string; key_prefix: string; tenant_id: string | null; method: string; route: string; path: string;
      resource: string; resource_ids: string[]; action: string; status: number; changes: NewAuditEntry['changes'];
    }>(
      `SELECT id::text, at, key_id, key_prefix, tenant_id, method, route, path, resource, resource_ids, action, status, changes FROM audit_log
       WHERE ($1::uuid IS NULL OR tenant_id = $1) AND ($2::text IS NULL OR resource = $2) AND ($3::text IS NULL OR key_id = $3)
         AND ($4::timestamptz IS NULL OR at >= $4) AND ($5::timestamptz IS NULL OR at <= $5)
         AND ($6::timestamptz IS NULL OR (at, id) < ($6, $7::bigint))
       ORDER BY audit_log.at DESC, audit_log.id DESC LIMIT $8`,
      [f.tenantId ?? null, f.resource ?? null, f.keyId ?? null, f.since ?? null, f.until ?? null, f.before?.at ?? null, f.before?.id ?? null, f.limit],
    );
    return rows.map((r) => ({
      id: r.id, at: r.at, keyId: r.key_id, keyPrefix: r.key_prefix, tenantId: r.tenant_id, method: r.method, route: r.route, path: r.path,
      resource: r.resource, resourceIds: r.resource_ids, action: r.action, status: r.status, changes: r.changes,
    }));
  }

  /** Drop the months wholly older than the retention; returns the partitions dropped. */
  async prune(): Promise<string[]> {
    const cutoff = this.clock.now() - this.retentionDays * DAY_MS;
    const { rows } = await this.db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace
       WHERE p.relname = 'audit_log' AND n.nspname = current_schema()`,
    );
    const dropped: string[] = [];
    for (const { name } of rows) {
      const m = PARTITION.exec(name);
      if (!m) continue;
      const end = Date.UTC(Number(m[1]), Number(m[2]), 1); // the first instant of the next month
      if (end > cutoff) continue;
      await this.db.query(`DROP TABLE IF EXISTS "${name}"`);
      dropped.push(name);
    }
    return dropped;
  }

  /** The partition holding `at`'s month (made once, whichever process comes first). */
  private async ensurePartition(at: Date): Promise<void> {
    const y = at.getUTCFullYear();
    const m = at.getUTCMonth();
    const from = new Date(Date.UTC(y, m, 1)).toISOString();
    const to = new Date(Date.UTC(y, m + 1, 1)).toISOString();
    await tx(this.db, async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('laurel-audit-partition'))`);
      await c.query(`CREATE TABLE IF NOT EXISTS "${partitionName(y, m)}" PARTITION OF audit_log FOR VALUES FROM ('${from}') TO ('${to}')`);
    });
  }
}
