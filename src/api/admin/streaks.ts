import typia from 'typia';
import { Ctx, identifyAdmin } from '../../context';
import { check, idsParam, jsonBody } from '../../http/body';
import { invalid } from '../../errors';
import { reply, Route } from '../../http/server';
import { MAX_BATCH } from './batch';
import { configTx } from '../../store/config-tx';
import { streakCall, streakProblem } from '../../services/streak-calls';
import { createPauses, removePauses } from '../../services/streak-pauses';
import type { FreezesBody, PausesBody, RestoreBody, StreakSettings, UserIssue } from '../../wire/admin';
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
          else issues.push(userIssue(index, f.userId, streakProblem(r.kind)));
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
        const { created, issues } = await createPauses(ctx, tenant, atMost(pauses));
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
        return reply(200, await removePauses(ctx, tenant, ids));
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
          else issues.push(userIssue(index, u.id, streakProblem(r.kind)));
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
