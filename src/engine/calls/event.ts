import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import type { ProgramBoost, ProgramText } from '../../domain/points';
import type { EventBoard } from '../../domain/leaderboards';
import { boostsText } from './user-op';

/** Arguments of lua/event.lua, named (see the script's header for their order). */
export interface EventArgs {
  ver: string;
  metricSlot: number;
  value: number;
  now: number;
  /** The idempotency bucket and member; null when the event has no key. */
  idempotency: { bucket: number; member: string } | null;
  zone: string;
  /** User patch (JSON object). */
  patch: string;
  /** Event record (JSON, for the change stream). */
  record: string;
  /** Name of the points program. */
  programName: string | number;
  /** The user's own boosts. */
  userBoosts: ProgramBoost[];
  date: string;
  /** 'day,week,month,f' ('' when streaks are off). */
  streak: string;
  /** Leaderboards this event may move. */
  boards: EventBoard[];
  maxBacklog: number;
  userId: string;
  /** Event attributes (JSON; '' when none). */
  attributes: string;
  /** The program's text when Redis asked for it ('' otherwise). */
  program: ProgramText | '';
  /** Retention due times 'base,r0,r1' ('' when off). */
  retentionDue: string;
  /** The event's id (its award ids derive from it; kept in the user's recent awards). */
  eventId: string;
  /** Leagues this event may move (JSON; '' when none: src/domain/leagues.ts eventLeagues). */
  leagues: string;
}

export type EventReply =
  | { code: 'STALE' }
  | { code: 'PROGRAM' }
  | { code: 'BACKLOG' }
  | { code: 'TZ'; zone: string }
  | { code: 'BLOCKED'; systemSlot: string }
  | { code: 'REPLAY'; total: number; streakState: string | undefined }
  | { code: 'OK'; total: number; points: string; achievements: string | undefined; streak: string; boards: string | undefined; leagues: string | undefined };

/** lua/event.lua: apply one metric event atomically (one Redis call, which may carry other events of the tenant: group-commit.ts). */
export async function eventCall(engine: Engine, tk: TenantKeys, a: EventArgs): Promise<EventReply> {
  const r = (await engine.events.call(
    tk.config,
    [tk.config, tk.user(a.userId), tk.idempotency(a.idempotency?.bucket ?? 0), tk.stream, tk.stats, tk.due, tk.boardTicks, tk.retentionDue, tk.recent(a.userId)],
    [a.ver, a.metricSlot, String(a.value), a.now, a.idempotency?.member ?? '', a.zone, a.patch, a.record,
      a.programName, boostsText(a.userBoosts), a.date, a.streak, JSON.stringify(a.boards), tk.boardPrefix,
      a.maxBacklog, a.userId, a.attributes, a.program, a.retentionDue, a.eventId, a.leagues, tk.leaguePrefix],
  )) as string[];
  switch (r[0]) {
    case 'STALE':
    case 'PROGRAM':
    case 'BACKLOG':
      return { code: r[0] };
    case 'TZ':
      return { code: 'TZ', zone: r[1]! };
    case 'BLOCKED':
      return { code: 'BLOCKED', systemSlot: r[1]! };
    case 'REPLAY':
      return { code: 'REPLAY', total: Number(r[1]), streakState: r[2] };
    case 'OK':
      return { code: 'OK', total: Number(r[1]), points: r[2]!, achievements: r[3], streak: r[4]!, boards: r[5], leagues: r[6] };
    default:
      throw new Error(`event: unexpected reply ${String(r[0])}`);
  }
}
