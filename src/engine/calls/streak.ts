import type { Engine } from '../library';
import type { TenantKeys } from '../../redis/keys';
import type { ProgramText } from '../../domain/points';

export interface StreakArgs {
  ver: string;
  now: number;
  userId: string;
  program: ProgramText;
  /** 'day,week,month,f'. */
  streak: string;
  /** streak_admin's operation ('' for streak_read). */
  op: string;
  /** Pauses (JSON). */
  pauses: string;
  /** The zone the periods were computed in. */
  zone: string;
}

/**
 * streak_read only: `unflushed`, the user's last change id while Postgres may
 * lack it, else ''; `recent`, the active frequency's recent history as kept in
 * the user hash (see domain/streaks recentPeriods), and `pauses`, the user's
 * pauses as kept there ([start day, end day, id] JSON); '' when none.
 */
export type StreakCallReply =
  | { code: 'STALE' }
  | { code: 'NOTFOUND' | 'FULL' | 'NOTHING' }
  | { code: 'TZ'; zone: string }
  | { code: 'OK'; raw: string; unflushed: string; recent: string; pauses: string };

/** lua/streak_read.lua and lua/streak_admin.lua: settle (and change) one user's streak. */
export async function streakCall(engine: Engine, tk: TenantKeys, script: 'streak_read' | 'streak_admin', a: StreakArgs): Promise<StreakCallReply> {
  const r = (await engine.fcall(script, [tk.config, tk.user(a.userId), tk.stream], [
    a.ver, a.now, a.userId, a.program, a.streak, a.op, a.pauses, a.zone,
  ])) as string[];
  switch (r[0]) {
    case 'STALE':
    case 'NOTFOUND':
    case 'FULL':
    case 'NOTHING':
      return { code: r[0] };
    case 'TZ':
      return { code: 'TZ', zone: r[1]! };
    case 'OK':
      return { code: 'OK', raw: r[1]!, unflushed: r[2] ?? '', recent: r[3] ?? '', pauses: r[4] ?? '' };
    default:
      throw new Error(`${script}: unexpected reply ${String(r[0])}`);
  }
}
