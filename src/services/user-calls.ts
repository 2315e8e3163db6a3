import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context';
import { Principal, requireUser } from '../auth/auth';
import { invalid, notFound } from '../domain/errors';
import { localDate, zoneOr } from '../domain/time';
import { userBoostsArg } from '../domain/points';
import { isUser } from '../domain/user-hash';
import { firstZone, userReadCall, userUpsertCall, STALE, withConfig, ZONE_TTL_MS, zoneKey } from '../engine';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';

/*
 * Reading and writing a user's hash through the engine, shared by the
 * handlers (users, points, achievements, leaderboards, preferences, wrapped).
 */

/** Set fields of an existing user's hash (preferences), in one script call with its change record; the user's fields after. */
export function writeUserFields(ctx: Ctx, tenant: Tenant, id: string, fields: Record<string, string>): Promise<Map<string, string>> {
  return writeFields(ctx, tenant, id, fields, 'update', undefined, () => {});
}

export async function writeFields(
  ctx: Ctx, tenant: Tenant, id: string, fields: Record<string, string>, mode: 'upsert' | 'update',
  zone: string | null | undefined, checkInput: (cfg: TenantConfig) => void,
): Promise<Map<string, string>> {
  const patch = JSON.stringify(fields);
  const tk = ctx.keys.tenant(tenant.slot);
  return withConfig(ctx.configs, tenant, async (cfg) => {
    checkInput(cfg);
    const now = ctx.clock.now();
    // Boost dates use the zone sent, else the last one seen (exact for new users, who have no other).
    const date = localDate(now, firstZone(ctx.zones, zoneKey(tenant.slot, id), zone, cfg.defaultZone));
    const r = await userUpsertCall(ctx.engine, tk, {
      ver: cfg.ver, now, mode, userId: id, patch, program: cfg.program(null), userBoosts: userBoostsArg(cfg.userBoosts.get(id)), date, opId: randomUUID(),
    });
    if (r.code === 'STALE') return STALE;
    if (r.code === 'NOTFOUND') throw notFound(`User "${id}" not found`);
    if (r.code === 'BLOCKED') throw invalid(`Not enough points in "${cfg.systemsBySlot.get(Number(r.systemSlot))?.key ?? r.systemSlot}"`);
    if (zone !== undefined) ctx.zones.set(zoneKey(tenant.slot, id), zoneOr(zone, cfg.defaultZone), ZONE_TTL_MS);
    return r.fields;
  });
}

export interface ReadUser {
  principal: Principal;
  tenant: Tenant;
  cfg: TenantConfig;
  id: string;
  fields: Map<string, string>;
  /** The user's last change id while Postgres may lack it, else '' (see postgresThrough). */
  unflushed: string;
  /** With `recent`: whether the user is tracked since creation, and the list asked for ('' when none; src/domain/recent-history.ts). */
  tracked: boolean;
  recent: string;
}

/**
 * Read a user's hash with a config that matches it; 404 for an unknown user.
 * With `postgres` the caller goes on to read the user's rows in Postgres:
 * any of the user's change records still unflushed are written first.
 * `recent` names a list of the user's recent history to read with the hash
 * (given the config; '' for none).
 */

export async function readUser(
  ctx: Ctx,
  { principal, tenant }: { principal: Principal; tenant: Tenant },
  id: string,
  opts: { postgres?: boolean; recent?: (cfg: TenantConfig) => string } = {},
): Promise<ReadUser> {
  requireUser(principal, id);
  const tk = ctx.keys.tenant(tenant.slot);
  const u = await withConfig(ctx.configs, tenant, async (cfg) => {
    const r = await userReadCall(ctx.engine, tk, { ver: cfg.ver, userId: id, recent: opts.recent?.(cfg) });
    if (r.code === 'STALE') return STALE;
    if (!isUser(r.fields)) throw notFound(`User "${id}" not found`);
    return { principal, tenant, cfg, id, fields: r.fields, unflushed: r.unflushed, tracked: r.tracked, recent: r.recent };
  });
  if (opts.postgres) await postgresThrough(ctx, u);
  return u;
}

/** Before reading a user's rows in Postgres: write the user's change records it may lack yet. */
export async function postgresThrough(ctx: Ctx, u: ReadUser): Promise<void> {
  if (u.unflushed) await ctx.durable.through(u.tenant, u.id, u.unflushed);
}
