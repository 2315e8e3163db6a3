import type { PoolClient } from 'pg';
import type { Ctx } from '../context';
import { tx } from './db';
import { TenantConfigs } from './tenant-config';
import type { Tenant } from './tenants';

/** A new per-tenant short id (never reused, so stale Redis fields never alias). */
export async function nextSlot(c: PoolClient, tenantId: string): Promise<number> {
  const { rows } = await c.query<{ seq: number }>('UPDATE tenants SET seq = seq + 1 WHERE id = $1 RETURNING seq', [tenantId]);
  return rows[0]!.seq;
}

/**
 * A config change: runs in a transaction that locks the tenant row and bumps
 * its config version, then publishes the compiled config to Redis and tells
 * the other processes to drop their copy.
 */
export async function configTx<T>(ctx: Ctx, tenant: Tenant, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  return maybeConfigTx(ctx, tenant, async (c) => ({ commit: true, value: await fn(c) }));
}

/**
 * A config change that may turn out to change nothing (a plan, a document
 * equal to the configuration): when `fn` says not to commit, its writes are
 * undone and there is no new version and nothing to publish.
 */
export async function maybeConfigTx<T>(ctx: Ctx, tenant: Tenant, fn: (c: PoolClient) => Promise<{ commit: boolean; value: T }>): Promise<T> {
  const out = await tx(ctx.db, async (c) => {
    await c.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenant.id]);
    await c.query('SAVEPOINT change');
    const r = await fn(c);
    if (r.commit) await TenantConfigs.bump(c, tenant.id);
    else await c.query('ROLLBACK TO SAVEPOINT change');
    return r;
  });
  if (out.commit) {
    await ctx.configs.publish(tenant);
    await ctx.broadcast(`config:${tenant.slot}`);
  }
  return out.value;
}
