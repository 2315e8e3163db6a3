import type { AdminLeague } from '../../../wire/leagues';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from '../../../store/db';
import type { Ctx } from '../../../context';
import { canonicalZone } from '../../../domain/time';
import { LeagueConfig, runAt, runDates, runParams, RunParams, Tier } from '../../../domain/leagues';
import { KEY_PATTERN, KEY_RULE } from '../batch';
import { nextSlot } from '../../../store/config-tx';
import { countMetrics } from '../../../store/metrics';
import { pointsSystemExists } from '../../../store/points-systems';
import { idOfKey } from '../../../store/config-keys';
import {
  insertLeague, LEAGUE_COLS, LeagueRow, updateLeagueRow,
} from '../../../store/leagues';
import { getRow, Resource, Scope } from '../resource';
import { retentionSettingsOf } from './retention';
import type { CreateLeague, PatchLeague } from '../../../wire/leagues';

// League writes (docs/leagues.md), shared by the Admin API and the configuration document.

/** A row as the run math sees it (slots of metric and system are not needed there). */
export function leagueOfRow(r: LeagueRow): LeagueConfig {
  return {
    id: r.id, slot: r.slot, key: r.key, name: r.name, description: r.description, status: r.status, rankBy: r.rank_by,
    metricId: r.metric_id, metricSlot: null, systemId: r.points_system_id, systemSlot: null, cadence: r.cadence,
    weekStart: r.week_start, timeZone: r.time_zone, cohortSize: r.cohort_size, tiers: r.tiers,
    next: r.next_from_run === null ? null : { fromRun: r.next_from_run, cohortSize: r.next_cohort_size!, tiers: r.next_tiers! },
  };
}

export const leagues = (now: () => number): Resource<LeagueRow, AdminLeague> => ({
  path: '/admin/v1/leagues',
  table: 'leagues',
  cols: LEAGUE_COLS,
  order: 'slot',
  noun: 'League',
  json: (r) => {
    const l = leagueOfRow(r);
    const run = runAt(l, now());
    const current = runParams(l, run);
    return {
      id: r.id, key: r.key, name: r.name, description: r.description ?? undefined, rankBy: r.rank_by, cadence: r.cadence,
      weekStart: r.week_start, timeZone: r.time_zone, cohortSize: current.cohortSize, tiers: current.tiers, status: r.status,
      currentRun: { ...runDates(l, run), run, cohorts: current.tiers.map((t, i) => ({ tier: t.key, cohorts: r.cohorts?.[i] ?? 0 })) },
      ...(r.metric_id ? { metricId: r.metric_id } : {}),
      ...(r.points_system_id ? { pointsSystemId: r.points_system_id } : {}),
      ...(l.next && run < l.next.fromRun ? { next: { start: runDates(l, l.next.fromRun).start, cohortSize: l.next.cohortSize, tiers: l.next.tiers } } : {}),
    };
  },
});

/** Why tiers and a cohort size cannot go together (null: they can). */
function tiersProblem(tiers: Tier[], size: number): string | null {
  if (size < 2 || size > 100) return 'cohortSize must be from 2 to 100';
  if (tiers.length < 2 || tiers.length > 20) return 'tiers must hold 2 to 20 tiers';
  const keys = new Set<string>();
  for (const [i, t] of tiers.entries()) {
    if (!KEY_PATTERN.test(t.key)) return `tiers[${i}].key: ${KEY_RULE}`;
    if (keys.has(t.key)) return `tiers[${i}].key: duplicate tier key "${t.key}"`;
    keys.add(t.key);
    if (t.promote + t.relegate > size) return `tiers[${i}]: promote + relegate (${t.promote + t.relegate}) is over cohortSize (${size})`;
  }
  if (tiers[0]!.relegate > 0) return 'tiers[0].relegate must be 0: nobody is relegated from the lowest tier';
  if (tiers[tiers.length - 1]!.promote > 0) return `tiers[${tiers.length - 1}].promote must be 0: nobody is promoted from the top tier`;
  return null;
}

const tierList = (tiers: Tier[]): Tier[] => tiers.map((t) => ({ key: t.key, name: t.name, promote: t.promote, relegate: t.relegate }));

export async function createLeague(ctx: Ctx, c: PoolClient, s: Scope, item: CreateLeague): Promise<LeagueRow | string> {
  if (!KEY_PATTERN.test(item.key)) return `key: ${KEY_RULE}`;
  if ((await idOfKey(c, s.tenant.id, 'leagues', item.key)) !== null) return `key: "${item.key}" is already used by another league`;
  if (!['daily', 'weekly', 'monthly'].includes(item.cadence)) return `cadence: "${String(item.cadence)}" is not daily, weekly or monthly`;
  const size = item.cohortSize ?? 30;
  const problem = tiersProblem(item.tiers, size);
  if (problem) return problem;
  if (item.rankBy === 'metric') {
    if (!item.metricId) return 'metricId is required when rankBy is metric';
    if (!(await countMetrics(c, s.tenant.id, [item.metricId]))) return `metricId: no metric ${item.metricId}`;
  } else {
    if (!item.pointsSystemId) return 'pointsSystemId is required when rankBy is points';
    if (!(await pointsSystemExists(c, s.tenant.id, item.pointsSystemId))) return `pointsSystemId: no points system ${item.pointsSystemId}`;
  }
  const zone = item.timeZone === undefined ? (await retentionSettingsOf(c, s.tenant.id)).defaultTimeZone : canonicalZone(item.timeZone);
  if (zone === null) return `timeZone: "${item.timeZone}" is not an IANA time zone`;
  const weekStart = item.weekStart ?? 'monday';
  const now = ctx.clock.now();
  // Runs before the one in progress at creation were never played: nothing to finalize.
  const first = runAt({ cadence: item.cadence, weekStart, timeZone: zone }, now);
  return insertLeague(c, s.tenant.id, {
    id: randomUUID(), slot: await nextSlot(c, s.tenant.id), key: item.key, name: item.name, description: item.description ?? null,
    status: item.status ?? 'active', rankBy: item.rankBy, metricId: item.rankBy === 'metric' ? item.metricId ?? null : null,
    systemId: item.rankBy === 'points' ? item.pointsSystemId ?? null : null, cadence: item.cadence, weekStart, timeZone: zone, cohortSize: size,
    tiers: tierList(item.tiers), finalizedRun: first - 1,
  }, new Date(now));
}

/** Name, description and status change at once; tiers and cohort size from the next run on. */
export async function updateLeague(ctx: Ctx, c: PoolClient, s: Scope, item: PatchLeague): Promise<LeagueRow | string> {
  const row = await getRow(c, leagues(() => ctx.clock.now()), s, item.id.toLowerCase());
  if (!row) return 'League not found';
  const l = leagueOfRow(row);
  const run = runAt(l, ctx.clock.now());
  // A change whose run has come is the league's own now.
  let current = runParams(l, run);
  let next: (RunParams & { fromRun: number }) | null = l.next && run < l.next.fromRun ? l.next : null;
  if (item.tiers !== undefined || item.cohortSize !== undefined) {
    const base = next ?? current;
    const tiers = item.tiers ?? base.tiers;
    const size = item.cohortSize ?? base.cohortSize;
    const problem = tiersProblem(tiers, size);
    if (problem) return problem;
    next = { fromRun: run + 1, cohortSize: size, tiers: tierList(tiers) };
  }
  current = { cohortSize: current.cohortSize, tiers: current.tiers };
  return updateLeagueRow(c, s.tenant.id, row.id, {
    name: item.name ?? row.name, description: item.description !== undefined ? item.description : row.description, status: item.status ?? row.status,
    cohortSize: current.cohortSize, tiers: current.tiers, next,
  }, new Date(ctx.clock.now()));
}
