import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context';
import { storedZone } from '../engine';
import { dayNumber, localDate, zoneOr } from '../domain/time';
import { deletePause, deletePauses, insertPause, pausesOf } from '../store/streak-pauses';
import type { Tenant } from '../store/tenants';
import type { AdminIssue, AdminStreakPause, PausesBody } from '../wire/admin';
import { streakCall, streakProblem, StreakReply } from './streak-calls';

/** Publish a user's pauses into their hash (as day numbers), settling the streak with them. */
async function syncPauses(ctx: Ctx, tenant: Tenant, userId: string): Promise<StreakReply> {
  const rows = await pausesOf(ctx.db, tenant.id, userId);
  return streakCall(ctx, tenant, userId, 'streak_admin', 'pauses', JSON.stringify(rows.map((r) => [dayNumber(r.start), dayNumber(r.end), r.id])));
}

/**
 * Create pauses, each on its own: one refused (bad dates, starting before the
 * user's today, or refused by the streak script) is an issue and leaves
 * nothing behind; the others are kept.
 */
export async function createPauses(ctx: Ctx, tenant: Tenant, pauses: PausesBody['pauses']): Promise<{ created: AdminStreakPause[]; issues: AdminIssue[] }> {
  const issues: AdminIssue[] = [];
  const created: AdminStreakPause[] = [];
  const tk = ctx.keys.tenant(tenant.slot);
  for (const [index, p] of pauses.entries()) {
    const issue = (message: string) => issues.push({ index, userId: p.userId, severity: 'error', message });
    const start = dayNumber(p.start);
    const end = dayNumber(p.end);
    if (start === null || end === null) { issue('start and end must be dates (YYYY-MM-DD)'); continue; }
    if (end < start) { issue('end must not be before start'); continue; }
    const tz = zoneOr(await storedZone(ctx.redis, tk, p.userId), (await ctx.configs.get(tenant)).defaultZone);
    if (start < dayNumber(localDate(ctx.clock.now(), tz))!) { issue(`start is before today in the user's zone (${tz})`); continue; }
    const id = randomUUID();
    await insertPause(ctx.db, { id, tenantId: tenant.id, userId: p.userId, start: p.start, end: p.end, created: new Date(ctx.clock.now()) });
    const r = await syncPauses(ctx, tenant, p.userId);
    if (r.kind !== 'OK') {
      await deletePause(ctx.db, id);
      issue(streakProblem(r.kind));
      continue;
    }
    // Start dates before the user's today are refused above, so a new pause is never over yet.
    created.push({ id, userId: p.userId, start: p.start, end: p.end, status: 'active' });
  }
  return { created, issues };
}

/** Delete pauses by id and republish their users' pauses; an id that is not the tenant's is an issue. */
export async function removePauses(ctx: Ctx, tenant: Tenant, ids: string[]): Promise<{ deleted: { id: string }[]; issues: AdminIssue[] }> {
  const rows = await deletePauses(ctx.db, tenant.id, ids);
  for (const userId of new Set(rows.map((r) => r.userId))) await syncPauses(ctx, tenant, userId);
  const gone = new Set(rows.map((r) => r.id));
  const issues: AdminIssue[] = ids.filter((id) => !gone.has(id)).map((id) => ({ id, severity: 'error', message: 'Streak pause not found' }));
  return { deleted: rows.map((r) => ({ id: r.id })), issues };
}
