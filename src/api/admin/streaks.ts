import typia from 'typia';
import type { Ctx } from '../../context';
import { idsParam } from '../../http/body';
import { invalid } from '../../errors';
import { answer, io, ok, route } from '../define';
import { MAX_BATCH } from './batch';
import { configTx } from '../../store/config-tx';
import type { Tenant } from '../../store/tenants';
import { streakCall, streakProblem } from '../../services/streak-calls';
import { createPauses, removePauses } from '../../services/streak-pauses';
import type {
  AdminStreakPause, Created, Deleted, FreezesBody, FreezesResponse, IdsQuery, PausesBody, RestoreBody, RestoreResponse, StreakSettings,
  StreakSettingsResponse, UserIssue,
} from '../../wire/admin';
import { saveStreakSettings, streakSettingsOf } from './writes/streaks';

function atMost<T>(list: T[]): T[] {
  if (list.length === 0) throw invalid('At least one item is required');
  if (list.length > MAX_BATCH) throw invalid(`At most ${MAX_BATCH} items per request`);
  return list;
}

/** Streak settings (Laurel's; Trophy sets these in its dashboard) and per-user streak operations. */
export function streakAdminRoutes(ctx: Ctx) {
  const common = { tag: 'Admin: streaks', auth: 'admin' } as const;
  const settings = typia.json.schema<StreakSettingsResponse>();
  return [
    route({
      ...common, method: 'get', path: '/admin/v1/streak', operationId: 'admin_streak_get',
      summary: 'Streak settings',
      responses: { 200: { description: 'The settings (defaults until set)', schema: settings } },
      handler: async ({ tenant }) => ok(await streakSettingsOf(ctx.db, tenant.id)),
    }),
    route({
      ...common, method: 'put', path: '/admin/v1/streak', operationId: 'admin_streak_set',
      summary: 'Replace the streak settings',
      body: io(typia.createValidate<StreakSettings>(), typia.json.schema<StreakSettings>()),
      responses: { 200: { description: 'The settings as saved', schema: settings } },
      handler: async ({ tenant, body }) => {
        await configTx(ctx, tenant, async (c) => {
          const problem = await saveStreakSettings(ctx, c, tenant.id, body);
          if (problem) throw invalid(problem);
        });
        return ok(await streakSettingsOf(ctx.db, tenant.id));
      },
    }),
    route({
      ...common, method: 'post', path: '/admin/v1/streaks/freezes', operationId: 'admin_streaks_freezes_create', documents400: true,
      summary: 'Give users a streak freeze each',
      body: io(typia.createValidate<FreezesBody>(), typia.json.schema<FreezesBody>()),
      responses: {
        201: { description: 'Some were granted; issues name the rest', schema: typia.json.schema<FreezesResponse>() },
        200: { description: 'None were granted', schema: typia.json.schema<FreezesResponse>() },
      },
      handler: async ({ tenant, body }) => {
        const { done, issues } = await eachUser(ctx, tenant, body.freezes.map((f) => f.userId), 'freeze');
        return answer(done.length ? 201 : 200, { issues });
      },
    }),
    route({
      ...common, method: 'post', path: '/admin/v1/streaks/pauses', operationId: 'admin_streaks_pauses_create',
      summary: "Pause users' streaks over date ranges",
      body: io(typia.createValidate<PausesBody>(), typia.json.schema<PausesBody>()),
      responses: { 201: { description: 'The pauses created, and issues for the rest', schema: typia.json.schema<Created<AdminStreakPause>>() } },
      handler: async ({ tenant, body }) => {
        const { created, issues } = await createPauses(ctx, tenant, atMost(body.pauses));
        if (created.length === 0) throw invalid(issues.map((i) => i.message).join('; '));
        return answer(201, { created, issues });
      },
    }),
    route({
      ...common, method: 'del', path: '/admin/v1/streaks/pauses', operationId: 'admin_streaks_pauses_delete',
      summary: 'Delete streak pauses (by id)',
      // `ids` may also come comma-separated, which a typia query type cannot read.
      queryDoc: typia.json.schema<IdsQuery>(),
      responses: { 200: { description: 'What was deleted, and ids not found', schema: typia.json.schema<Deleted>() } },
      handler: async ({ tenant, req }) => ok(await removePauses(ctx, tenant, idsParam(req.query))),
    }),
    route({
      ...common, method: 'post', path: '/admin/v1/streaks/restore', operationId: 'admin_streaks_restore', documents400: true,
      summary: 'Give users back the streak they last lost',
      body: io(typia.createValidate<RestoreBody>(), typia.json.schema<RestoreBody>()),
      responses: {
        201: { description: 'Some were restored; issues name the rest', schema: typia.json.schema<RestoreResponse>() },
        200: { description: 'None were restored', schema: typia.json.schema<RestoreResponse>() },
      },
      handler: async ({ tenant, body }) => {
        const { done, issues } = await eachUser(ctx, tenant, body.users.map((u) => u.id), 'restore');
        return answer(done.length ? 201 : 200, { restoredUsers: done, issues });
      },
    }),
  ];
}

/** A streak operation applied to each user in turn: the users it applied to, and an issue for each of the others. */
async function eachUser(ctx: Ctx, tenant: Tenant, userIds: string[], op: 'freeze' | 'restore'): Promise<{ done: string[]; issues: UserIssue[] }> {
  const done: string[] = [];
  const issues: UserIssue[] = [];
  for (const [index, userId] of atMost(userIds).entries()) {
    const r = await streakCall(ctx, tenant, userId, 'streak_admin', op);
    if (r.kind === 'OK') done.push(userId);
    else issues.push(userIssue(index, userId, streakProblem(r.kind)));
  }
  return { done, issues };
}

/** An error about one user, in the spec's fields and the SDK's (see UserIssue). */
function userIssue(index: number, userId: string, message: string): UserIssue {
  return { index, userId, severity: 'error', message, level: 'error', reason: message };
}
