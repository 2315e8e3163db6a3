import { changedFields, UserChangeRecord } from '../engine/change-record';
import type { TenantConfig } from '../store/tenant-config';
import type { LiveUserUpdateType } from '../wire/live';
import { achievementJson } from '../domain/achievements';
import { systemChanges } from '../domain/points';
import { FREQ_CODE, parseState, streakJson } from '../domain/streaks';
import { rankChangeJson } from '../domain/leaderboards';
import { leagueChangeJson } from '../domain/leagues';
import { FREEZES_FIELD, streakField } from '../domain/user-hash';

/** One change to a user, before the subscription's name and sequence number are added. */
export interface UserChange {
  type: LiveUserUpdateType;
  body: Record<string, unknown>;
}

/**
 * What a change record did to its user, in the bodies of the webhook events
 * of the same names (without `user`), plus `metric.changed` for an event.
 * Unlike the webhook deriver, which replays records over the users' stored
 * state, this works from the record alone (it holds every field it changed),
 * so it needs no read: streak bodies carry `freezes` only when they changed.
 */
export function userChanges(cfg: TenantConfig, r: UserChangeRecord): UserChange[] {
  const out: UserChange[] = [];
  const { at, opId: op, date } = r;
  const changed = changedFields(r.userFields);

  if (r.kind === 'ev') {
    const ev = r.event;
    const m = cfg.metricsById.get(ev.m);
    out.push({ type: 'metric.changed', body: { eventId: ev.id, metricId: ev.m, metricKey: m?.key ?? null, value: ev.v, total: Number(r.total) } });
  }

  // Completions by a review of users who already qualified are backdated: not news (webhooks skip them too).
  if (r.origin !== 'review') {
    for (const d of r.completions) {
      const a = cfg.achievementsById.get(d.i);
      if (a) out.push({ type: 'achievement.completed', body: { achievement: achievementJson(a, (id) => cfg.metricsById.get(id)?.name, at) } });
    }
  }

  if (r.points && op && date) {
    for (const c of systemChanges(cfg, r.points, op, at, date)) {
      out.push({ type: 'points.changed', body: { points: c.points } });
      if (c.level) out.push({ type: 'points.level_changed', body: c.level });
    }
  }

  const sk = cfg.streak;
  if (sk?.enabled) {
    const code = FREQ_CODE[sk.frequency];
    const periods = r.periods.filter((p) => p.f === code);
    const raw = changed.get(streakField(code));
    const st = parseState(typeof raw === 'string' ? raw : undefined);
    const fz = changed.get(FREEZES_FIELD);
    const freezes = typeof fz === 'string' ? Number(fz) : null;
    // Only an event extends a streak (a restore writes a period too, but extends nothing).
    const extension = r.kind === 'ev' ? periods.find((p) => p.l > 0 && !p.fr && !p.pa) : undefined;
    if (extension) out.push({ type: extension.l === 1 ? 'streak.started' : 'streak.extended', body: { streak: streakJson(sk, st, extension.p, freezes) } });
    if (periods.some((p) => p.l === 0)) out.push({ type: 'streak.lost', body: { length: st.lost } });
    const consumed = periods.filter((p) => p.fr).length;
    if (consumed > 0) out.push({ type: 'streak.freeze_consumed', body: { consumed, freezes } });
  }

  for (const c of r.boards) {
    const b = cfg.boardsBySlot.get(c.k);
    if (!b || c.rk === c.pr) continue;
    out.push({ type: 'leaderboard.rank_changed', body: { leaderboard: rankChangeJson(cfg, b, c) } });
  }

  // A league rank that moved, as the event response shows it.
  for (const c of r.leagues) {
    const l = cfg.leaguesBySlot.get(c.k);
    if (!l || c.rk === c.pr) continue;
    out.push({ type: 'league.rank_changed', body: { league: { key: l.key, name: l.name }, ...leagueChangeJson(l, c) } });
  }
  return out;
}
