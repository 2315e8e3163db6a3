import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { openRedis, RedisClient } from '../../src/redis/client';
import { purgeKeys } from '../../src/redis/purge';
import { Keys, TenantKeys } from '../../src/redis/keys';
import { Engine, eventCall, EventArgs, EventReply } from '../../src/engine';
import { PointsProgram, programText, ScriptPoints } from '../../src/domain/points';
import { streakProgram } from '../../src/domain/streaks';
import { dayNumber } from '../../src/domain/time';
import { CONFIG_VERSION_FIELD, DEFAULT_ZONE_FIELD } from '../../src/domain/config-hash';

/**
 * The Lua rules reached directly: the Functions library loaded into Redis,
 * called through the typed calls of src/engine with crafted programs and
 * arguments, with no server, HTTP or Postgres. Each tenant() is a fresh
 * tenant (its own config hash, so programs never leak between cases).
 */
export interface LuaRig {
  engine: Engine;
  redis: RedisClient;
  tenant(): Promise<TenantKeys>;
  /** One event (metric slot 1 unless given) with the program; date defaults to 2026-03-10. */
  event(tk: TenantKeys, a: Partial<EventArgs> & { userId: string; value: number }, prog?: Partial<PointsProgram>): Promise<EventReply>;
}

/** A program with nothing in it but what is given. */
export const program = (p: Partial<PointsProgram> = {}): PointsProgram => ({
  mt: [], uc: [], tt: [], st: [], bo: [], max: {}, apt: {}, am: [], ac: [], as: [], sk: streakProgram(null), ...p,
});

/** The streak argument of a local date (daily frequency active unless given; weeks and months are not under test here). */
export const dayArg = (date: string, f = 'd') => `${dayNumber(date)},0,0,${f}`;

/** A points reply's total of system slot `s` (undefined: unchanged). */
export const pointsOf = (r: EventReply, s = 1) => (r.code === 'OK' ? (JSON.parse(r.points) as ScriptPoints)[s] : undefined);

export async function luaRig(t: { teardown(fn: () => unknown): void }): Promise<LuaRig> {
  const config = loadConfig(process.env);
  const redis = openRedis(config);
  const engine = new Engine(redis);
  await engine.load();
  const prefix = `test-lua-${randomBytes(5).toString('hex')}:`;
  const keys = new Keys(prefix);
  let slot = 0;
  let n = 0;
  t.teardown(async () => {
    await purgeKeys(redis, `${prefix}*`);
    redis.disconnect();
  });
  return {
    engine,
    redis,
    async tenant() {
      const tk = keys.tenant(++slot);
      await redis.hset(tk.config, CONFIG_VERSION_FIELD, '1', DEFAULT_ZONE_FIELD, 'UTC');
      return tk;
    },
    event(tk, a, prog = {}) {
      const id = `e${++n}`;
      return eventCall(engine, tk, {
        ver: '1', metricSlot: 1, now: Date.parse('2026-03-10T12:00:00Z'), idempotency: null, zone: 'UTC', patch: '{}', record: '{}',
        programName: 1, userBoosts: [], date: '2026-03-10', streak: '', boards: [], maxBacklog: 1_000_000, attributes: '',
        program: programText(program(prog)), retentionDue: '', eventId: id, leagues: '', ...a,
      });
    },
  };
}
