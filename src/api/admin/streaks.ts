import { randomUUID } from 'node:crypto';
import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { check, idsParam, jsonBody } from '../../http/body';
import { invalid } from '../../errors';
import { reply, Route } from '../../http/server';
import { dayNumber, localDate, zoneOr } from '../../domain/time';
import type { Tenant } from '../../store/tenants';
import { AdminIssue, MAX_BATCH } from './batch';
import { configTx } from '../../store/config-tx';
import { streakCall } from '../../services/streak-calls';
import type { AdminStreakPause, FreezesBody, PausesBody, RestoreBody, StreakSettings, UserIssue } from '../../wire/admin';
import { ZONE_FIELD } from '../../domain/user-hash';
import { saveStreakSettings, streakSettingsOf } from './writes/streaks';

const validateSettings = typia.createValidate<StreakSettings>();
const validateFreezes = typia.createValidate<FreezesBody>();
const validatePauses = typia.createValidate<PausesBody>();
const validateRestore = typia.createValidate<RestoreBody>();

function atMost<T>(list: T[]): T[] {
  if (list.length === 0) throw invalid('At least one item is required');
  if (list.length > MAX_BATCH) throw invalid(`At most ${MAX_BATCH} items per request`);
  return list;
}

/** Streak settings (Laurel's; Trophy sets these in its dashboard) and per-user streak operations. */
export function streakAdminRoutes(ctx: Ctx): Route[] {
  /** Publish a user's current and upcoming pauses into their hash (as day numbers), settling with them. */
  const syncPauses = async (tenant: Tenant, userId: string) => {
    const { rows } = await ctx.db.query<{ id: string; s: string; e: string }>(
      `SELECT id, to_char(start_date, 'YYYY-MM-DD') AS s, to_char(end_date, 'YYYY-MM-DD') AS e
       FROM streak_pauses WHERE tenant_id = $1 AND user_id = $2 ORDER BY start_date`,
      [tenant.id, userId],
    );
    return streakCall(ctx, tenant, userId, 'streak_admin', 'pauses', JSON.stringify(rows.map((r) => [dayNumber(r.s), dayNumber(r.e), r.id])));
  };

  return [
    {
      method: 'get',
      pattern: '/admin/v1/streak',
      handler: async (req) => reply(200, await streakSettingsOf(ctx.db, (await identifyAdmin(ctx, req)).id)),
    },
    {
      method: 'put',
      pattern: '/admin/v1/streak',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const b = check(validateSettings, jsonBody(req));
        await configTx(ctx, tenant, async (c) => {
          const problem = await saveStreakSettings(ctx, c, tenant.id, b);
          if (problem) throw invalid(problem);
        });
        return reply(200, await streakSettingsOf(ctx.db, tenant.id));
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/streaks/freezes',
      body: true,
      documents400: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { freezes } = check(validateFreezes, jsonBody(req));
        const issues: UserIssue[] = [];
        let granted = 0;
        for (const [index, f] of atMost(freezes).entries()) {
          const r = await streakCall(ctx, tenant, f.userId, 'streak_admin', 'freeze');
          if (r.kind === 'OK') granted++;
          else issues.push(userIssue(index, f.userId, problem(r.kind)));
        }
        return reply(granted ? 201 : 200, { issues });
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/streaks/pauses',
      body: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { pauses } = check(validatePauses, jsonBody(req));
        const issues: AdminIssue[] = [];
        const created: AdminStreakPause[] = [];
        for (const [index, p] of atMost(pauses).entries()) {
          const issue = (message: string) => issues.push({ index, userId: p.userId, severity: 'error', message });
          const start = dayNumber(p.start);
          const end = dayNumber(p.end);
          if (start === null || end === null) { issue('start and end must be dates (YYYY-MM-DD)'); continue; }
          if (end < start) { issue('end must not be before start'); continue; }
          const tz = zoneOr(await ctx.redis.hget(ctx.keys.tenant(tenant.slot).user(p.userId), ZONE_FIELD), (await ctx.configs.get(tenant)).defaultZone);
          if (start < dayNumber(localDate(ctx.clock.now(), tz))!) { issue(`start is before today in the user's zone (${tz})`); continue; }
          const id = randomUUID();
          await ctx.db.query('INSERT INTO streak_pauses (id, tenant_id, user_id, start_date, end_date, created) VALUES ($1, $2, $3, $4, $5, $6)', [
            id, tenant.id, p.userId, p.start, p.end, new Date(ctx.clock.now()),
          ]);
          const r = await syncPauses(tenant, p.userId);
          if (r.kind !== 'OK') {
            await ctx.db.query('DELETE FROM streak_pauses WHERE id = $1', [id]);
            issue(problem(r.kind));
            continue;
          }
          // Start dates before the user's today are refused above, so a new pause is never over yet.
          created.push({ id, userId: p.userId, start: p.start, end: p.end, status: 'active' });
        }
        if (created.length === 0) throw invalid(issues.map((i) => i.message).join('; '));
        return reply(201, { created, issues });
      },
    },
    {
      method: 'del',
      pattern: '/admin/v1/streaks/pauses',
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const ids = idsParam(req.query);
        const { rows } = await ctx.db.query<{ id: string; user_id: string }>(
          'DELETE FROM streak_pauses WHERE tenant_id = $1 AND id = ANY($2::uuid[]) RETURNING id, user_id',
          [tenant.id, ids],
        );
        for (const userId of new Set(rows.map((r) => r.user_id))) await syncPauses(tenant, userId);
        const gone = new Set(rows.map((r) => r.id));
        const issues: AdminIssue[] = ids.filter((id) => !gone.has(id)).map((id) => ({ id, severity: 'error', message: 'Streak pause not found' }));
        return reply(200, { deleted: rows.map((r) => ({ id: r.id })), issues });
      },
    },
    {
      method: 'post',
      pattern: '/admin/v1/streaks/restore',
      body: true,
      documents400: true,
      handler: async (req) => {
        const tenant = await identifyAdmin(ctx, req);
        const { users } = check(validateRestore, jsonBody(req));
        const restoredUsers: string[] = [];
        const issues: UserIssue[] = [];
        for (const [index, u] of atMost(users).entries()) {
          const r = await streakCall(ctx, tenant, u.id, 'streak_admin', 'restore');
          if (r.kind === 'OK') restoredUsers.push(u.id);
          else issues.push(userIssue(index, u.id, problem(r.kind)));
        }
        return reply(restoredUsers.length ? 201 : 200, { restoredUsers, issues });
      },
    },
  ];
}

/** An error about one user, in the spec's fields and the SDK's (see UserIssue). */
function userIssue(index: number, userId: string, message: string): UserIssue {
  return { index, userId, severity: 'error', message, level: 'error', reason: message };
}

function problem(kind: string): string {
  switch (kind) {
    case 'NOTFOUND':
      return 'User not found';
    case 'FULL':
      return 'The user already has the maximum number of freezes';
    case 'NOTHING':
      return 'The user has no lost streak to restore';
    case 'DISABLED':
      return 'Streaks are not enabled';
    default:
      return kind;
  }
}
