import typia from 'typia';
import type { ConfigLeaderboard, CreateBoard } from '../../../../wire/admin';
import { boardsOf } from '../../../../store/leaderboards';
import { deleteByKey, idOfKey } from '../../../../store/config-keys';
import { createBoard, updateBoard } from '../../writes/leaderboards';
import { byIdentity, defined, Kind, outcome, problem, Writer } from '../kind';

async function fields(w: Writer, b: ConfigLeaderboard): Promise<CreateBoard> {
  const breakdownAttributes: string[] = [];
  for (const k of b.breakdownAttributeKeys ?? []) breakdownAttributes.push(await w.ids.attribute('user', k));
  const { metricKey, pointsSystemKey, breakdownAttributeKeys: _b, ...rest } = b;
  return {
    ...rest, breakdownAttributes,
    metricId: metricKey === undefined ? undefined : await w.ids.metric(metricKey),
    pointsSystemId: pointsSystemKey === undefined ? undefined : await w.ids.system(pointsSystemKey),
  };
}

/** Leaderboards: asking for active gives active or scheduled by the start date, as the Admin API does. */
export const leaderboardsKind: Kind<ConfigLeaderboard> = {
  name: 'leaderboards',
  validate: typia.createValidateEquals<ConfigLeaderboard[]>(),
  async read(c, tenantId, names) {
    const items = (await boardsOf(c, tenantId)).map((r) =>
      leaderboardsKind.normal({
        key: r.key, name: r.name, description: r.description, status: r.status, rankBy: r.rank_by,
        metricKey: r.metric_id ? names.metric.get(r.metric_id) : undefined,
        pointsSystemKey: r.points_system_id ? names.system.get(r.points_system_id) : undefined,
        maxParticipants: r.max_participants, start: r.start_date, end: r.end_date, startTime: r.start_time, endTime: r.end_time,
        breakdownAttributeKeys: r.breakdown_attributes.flatMap((id) => names.attribute.get(id) ?? []),
        runUnit: r.run_unit, runInterval: r.run_interval,
      }),
    );
    return byIdentity(items, (b) => b.key);
  },
  normal: (b) =>
    defined({
      key: b.key, name: b.name, description: b.description ?? null, status: b.status ?? 'inactive', rankBy: b.rankBy,
      metricKey: b.rankBy === 'metric' ? b.metricKey : undefined,
      pointsSystemKey: b.rankBy === 'points' ? b.pointsSystemKey : undefined,
      maxParticipants: b.maxParticipants ?? 1000, start: b.start, end: b.end ?? null, startTime: b.startTime ?? null, endTime: b.endTime ?? null,
      breakdownAttributeKeys: b.breakdownAttributeKeys ?? [], runUnit: b.runUnit ?? null, runInterval: b.runUnit ? (b.runInterval ?? null) : null,
    }),
  identity: (b) => b.key,
  refs: (b) => [
    ...(b.metricKey !== undefined ? [{ path: '.metricKey', kind: 'metrics', identity: b.metricKey }] : []),
    ...(b.pointsSystemKey !== undefined ? [{ path: '.pointsSystemKey', kind: 'pointsSystems', identity: b.pointsSystemKey }] : []),
    ...(b.breakdownAttributeKeys ?? []).map((k, i) => ({ path: `.breakdownAttributeKeys[${i}]`, kind: 'attributes', identity: `user:${k}` })),
  ],
  create: async (w, b) => outcome(await createBoard(w.ctx, w.c, w.scope, await fields(w, b))),
  async update(w, b, before) {
    const id = await idOfKey(w.c, w.scope.tenant.id, 'leaderboards', b.key);
    if (id === null) return problem('Leaderboard not found');
    // A document without a start keeps the one chosen when it was created (today, then).
    const fixed = { ...b, start: b.start ?? before.start };
    return outcome(await updateBoard(w.ctx, w.c, w.scope, { ...(await fields(w, fixed)), id }));
  },
  async remove(w, b) {
    await deleteByKey(w.c, w.scope.tenant.id, 'leaderboards', b.key);
  },
};
