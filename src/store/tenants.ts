import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { Clock } from '../clock';
import { TtlCache } from '../domain/ttl-cache';
import { forbidden, notFound, unauthorized } from '../errors';
import type { Principal } from '../auth/auth';
import { DEFAULT_TENANT_ID, TENANT_ROW_TABLES } from './migrations';
import { tx } from './db';
import type { AdminTenant } from '../wire/admin';

export interface Tenant {
  id: string;
  slot: number;
  customerId: string | null;
  name: string;
  status: string;
  isDefault: boolean;
  created: Date;
  updated: Date;
}

interface Row {
  id: string;
  slot: number;
  customer_id: string | null;
  name: string;
  status: string;
  is_default: boolean;
  created: Date;
  updated: Date;
}

const COLS = 'id, slot, customer_id, name, status, is_default, created, updated';
const toTenant = (r: Row): Tenant => ({
  id: r.id,
  slot: r.slot,
  customerId: r.customer_id,
  name: r.name,
  status: r.status,
  isDefault: r.is_default,
  created: r.created,
  updated: r.updated,
});

export function tenantJson(t: Tenant): AdminTenant {
  return {
    id: t.id,
    customerId: t.customerId ?? '',
    name: t.name,
    status: t.status,
    created: t.created.toISOString(),
    updated: t.updated.toISOString(),
  };
}

/** Tenant rows in Postgres, and the per-request resolution of `Tenant-ID`. */
export class Tenants {
  private readonly cache: TtlCache<string, Tenant | null>;

  constructor(
    private readonly db: Pool,
    private readonly clock: Clock,
  ) {
    this.cache = new TtlCache(clock, 10_000);
  }

  /**
   * The tenant a request acts on: the `Tenant-ID` header (a customerId), else
   * the key's own tenant (application keys), else the default tenant.
   */
  async resolve(principal: Principal, header: string): Promise<Tenant> {
    if (principal.kind === 'application') {
      // An application key dies with its tenant: 401 at once, even while another process still has the key cached.
      const own = await this.getById(principal.tenantId);
      if (!own) throw unauthorized();
      if (!header) return own;
    } else if (!header) return this.mustGet(DEFAULT_TENANT_ID);
    const t = await this.cached(`c:${header}`, () => this.queryOne('customer_id = $1', header));
    if (!t) throw notFound(`Tenant "${header}" not found`);
    if (principal.kind === 'application' && principal.tenantId !== t.id) throw forbidden('This API key belongs to another tenant');
    return t;
  }

  async getById(id: string): Promise<Tenant | null> {
    return this.cached(`i:${id}`, () => this.queryOne('id = $1', id));
  }

  private async mustGet(id: string): Promise<Tenant> {
    const t = await this.getById(id);
    if (!t) throw notFound('Tenant not found');
    return t;
  }

  /** Forget everything cached (tenant changes are rare; a broadcast clears all). */
  forget(): void {
    this.cache.clear();
  }

  async list(limit: number, skip: number): Promise<Tenant[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLS} FROM tenants WHERE NOT is_default ORDER BY slot LIMIT $1 OFFSET $2`,
      [limit, skip],
    );
    return rows.map(toTenant);
  }

  async all(): Promise<Tenant[]> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLS} FROM tenants ORDER BY slot`);
    return rows.map(toTenant);
  }

  /** A tenant as the Admin API sees it (the default tenant is the account itself, not listed). */
  async getListed(c: Pool | PoolClient, id: string): Promise<Tenant | null> {
    const { rows } = await c.query<Row>(`SELECT ${COLS} FROM tenants WHERE id = $1 AND NOT is_default`, [id]);
    return rows[0] ? toTenant(rows[0]) : null;
  }

  async customerIdTaken(c: PoolClient, customerId: string, exceptId?: string): Promise<boolean> {
    const { rowCount } = await c.query('SELECT 1 FROM tenants WHERE customer_id = $1 AND id IS DISTINCT FROM $2', [customerId, exceptId ?? null]);
    return (rowCount ?? 0) > 0;
  }

  async insert(c: PoolClient, customerId: string, name: string): Promise<Tenant> {
    const now = new Date(this.clock.now());
    const { rows } = await c.query<Row>(
      `INSERT INTO tenants (id, slot, customer_id, name, created, updated)
       VALUES ($1, nextval('tenant_slot_seq'), $2, $3, $4, $4) RETURNING ${COLS}`,
      [randomUUID(), customerId, name, now],
    );
    return toTenant(rows[0]!);
  }

  async update(c: PoolClient, id: string, patch: { customerId?: string; name?: string }): Promise<Tenant> {
    const { rows } = await c.query<Row>(
      `UPDATE tenants SET customer_id = COALESCE($2, customer_id), name = COALESCE($3, name), updated = $4
       WHERE id = $1 RETURNING ${COLS}`,
      [id, patch.customerId ?? null, patch.name ?? null, new Date(this.clock.now())],
    );
    return toTenant(rows[0]!);
  }

  async remove(c: PoolClient, id: string): Promise<Tenant | null> {
    const { rows } = await c.query<Row>(`DELETE FROM tenants WHERE id = $1 AND NOT is_default RETURNING ${COLS}`, [id]);
    if (!rows[0]) return null;
    for (const table of TENANT_ROW_TABLES) await c.query(`DELETE FROM ${table} WHERE tenant_id = $1`, [id]);
    return toTenant(rows[0]);
  }

  private async cached(key: string, load: () => Promise<Tenant | null>): Promise<Tenant | null> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const t = await load();
    this.cache.set(key, t, t ? 60_000 : 2_000);
    return t;
  }

  private async queryOne(where: string, value: string): Promise<Tenant | null> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLS} FROM tenants WHERE ${where}`, [value]);
    return rows[0] ? toTenant(rows[0]) : null;
  }
}

/**
 * Run `fn` in a transaction that holds the tenants table against other
 * writers (reads go on): a customer id checked free stays free until commit.
 */
export function withTenantsLocked<T>(db: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  return tx(db, async (c) => {
    await c.query('LOCK TABLE tenants IN SHARE ROW EXCLUSIVE MODE');
    return fn(c);
  });
}
