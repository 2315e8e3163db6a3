import { randomUUID } from 'node:crypto';
import { Ctx } from '../context';
import { eventCall, firstZone, inUserZone, STALE, withConfig, ZONE_TTL_MS, zoneKey } from '../engine';
import { invalid, notFound, unavailable } from '../domain/errors';
import type { Tenant } from '../store/tenants';
import { localDate, localTime } from '../domain/time';
import { boardsResponse, eventBoards } from '../domain/leaderboards';
import { eventLeagues, leaguesResponse } from '../domain/leagues';
import { userPatch } from '../domain/users';
import { idempotencySlot } from '../domain/idempotency';
import { eventDueArg } from '../domain/retention';
import { pointsResponse, ProgramText, ScriptPoints, userBoostsArg } from '../domain/points';
import { FREQ_CODE, parseState, periodIndexes, StreakConfig, streakArg, streakJson, StreakState } from '../domain/streaks';
import { completedJson } from './completed-achievements';
import { checkAttributeKeys, checkUserAttributes, zoneOf } from './user-input';
import type { EventBody, EventResponse, EventStreak } from '../wire/app';

/** The streak shape reported while streaks are not configured. */
const NO_STREAK: EventStreak = { length: 0, frequency: 'daily', started: null, periodStart: null, periodEnd: null, expires: null, extended: false };

/** The event response's streak: from the script's reply, or on a replay from the stored state. */
function currentStreak(cfg: StreakConfig | null, date: string, raw: string | undefined, replayed: boolean): EventStreak {
  if (!cfg?.enabled) return { ...NO_STREAK, frequency: cfg?.frequency ?? 'daily' };
  const n = periodIndexes(date, cfg.weekStart)[FREQ_CODE[cfg.frequency]];
  if (replayed) return streakJson(cfg, parseState(raw), n, null, false);
  const r = JSON.parse(raw!) as StreakState & { x: number; fz: number };
  return streakJson(cfg, r, n, r.fz, r.x === 1);
}

/** What recording an event gives: `replayed` when the idempotency key was seen before (nothing was counted again). */
export interface RecordedEvent {
  replayed: boolean;
  response: EventResponse;
}

/**
 * Count one validated event and everything it causes (points, achievements,
 * streak, leaderboards, and through the change record, webhooks): the single
 * event endpoint and the batch consumer both come here. Refusals are
 * DomainErrors (not_found: unknown metric; invalid: unknown attributes or
 * blocked points; unavailable: a store away or catching up); `idemKey` ''
 * means none.
 */
export async function recordEvent(ctx: Ctx, tenant: Tenant, metricKey: string, body: EventBody, idemKey: string): Promise<RecordedEvent> {
  const userId = body.user.id;
  const bodyZone = zoneOf(body.user);
  const tk = ctx.keys.tenant(tenant.slot);
  const zones = zoneKey(tenant.slot, userId);
  const now = ctx.clock.now();

  return withConfig(ctx.configs, tenant, async (cfg) => {
    // The zone the event is counted in: the one sent, else the user's last known one, else the tenant's default.
    const guess = firstZone(ctx.zones, zones, bodyZone, cfg.defaultZone);
    const metric = cfg.metricsByKey.get(metricKey);
    if (!metric) throw notFound(`Metric "${metricKey}" not found`);
    checkUserAttributes(cfg, body.user);
    checkAttributeKeys(body.attributes, cfg.eventAttributes, 'event');
    const slot = idemKey ? idempotencySlot(userId, metric.id, idemKey) : null;
    const eventId = slot ? slot.eventId : randomUUID();
    const patch = JSON.stringify(userPatch(body.user, bodyZone));
    // A wrong zone guess costs one more call (it can change only once per
    // event); so does a program Redis does not hold yet (once per config version).
    let date = '';
    const call = async (zone: string, program: ProgramText | '') => {
      date = localDate(now, zone);
      const record = JSON.stringify({
        id: eventId, u: userId, m: metric.id, v: body.value, a: body.attributes ?? null, at: now, d: date, ik: idemKey || null,
      });
      return eventCall(ctx.engine, tk, {
        ver: cfg.ver, metricSlot: metric.slot, value: body.value, now, idempotency: slot, zone, patch, record,
        programName: metric.slot, userBoosts: userBoostsArg(cfg.userBoosts.get(userId)), date, streak: streakArg(cfg.streak, date),
        boards: eventBoards(cfg.boardsByKey.values(), metric.id, date, localTime(now, zone), !!cfg.streak?.enabled),
        maxBacklog: ctx.config.maxBacklog, userId, attributes: body.attributes ? JSON.stringify(body.attributes) : '', program,
        retentionDue: eventDueArg(cfg.ver, cfg.retention, cfg.streak, date, zone), eventId,
        leagues: cfg.leaguesBySlot.size ? eventLeagues(cfg.leaguesBySlot.values(), metric.id, now) : '',
      });
    };
    const settled = await inUserZone(ctx.zones, zones, guess, async (zone) => {
      const r = await call(zone, '');
      return r.code === 'PROGRAM' ? call(zone, cfg.program(metric.id)) : r;
    });
    if (!settled) throw unavailable('Could not settle the user time zone; retry');
    const r = settled.reply;
    switch (r.code) {
      case 'STALE':
        return STALE;
      case 'PROGRAM':
        throw unavailable('Could not hand Redis the points program; retry');
      case 'BACKLOG':
        throw unavailable('Events are paused while the durable store catches up; retry shortly');
      case 'BLOCKED':
        throw invalid(`Not enough points in "${cfg.systemsBySlot.get(Number(r.systemSlot))?.key ?? r.systemSlot}" for this event`);
      case 'OK':
      case 'REPLAY': {
        ctx.zones.set(zones, settled.zone, ZONE_TTL_MS);
        const replayed = r.code === 'REPLAY';
        const response: EventResponse = {
          eventId,
          metricId: metric.id,
          total: r.total,
          achievements: replayed ? [] : completedJson(cfg, r.achievements, now),
          currentStreak: currentStreak(cfg.streak, date, replayed ? r.streakState : r.streak, replayed),
          points: replayed ? {} : pointsResponse(cfg, JSON.parse(r.points) as ScriptPoints, eventId, now, date),
          leaderboards: replayed ? {} : boardsResponse(cfg, r.boards),
          // Laurel's extension (docs/leagues.md): leagues the event moved.
          leagues: replayed ? {} : leaguesResponse(cfg, r.leagues),
        };
        if (idemKey) {
          response.idempotencyKey = idemKey;
          response.idempotentReplayed = replayed;
        }
        return { replayed, response };
      }
    }
    throw new Error(`event: unexpected reply ${(r as { code: string }).code}`);
  });
}
