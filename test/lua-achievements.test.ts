import t from 'tap';
import { dayArg, luaRig, pointsOf } from './helpers/lua';
import type { PointsProgram, ProgramMetricAchievement } from '../src/domain/points';
import { streakProgram } from '../src/domain/streaks';
import { achievedField } from '../src/domain/user-hash';
import { completionsField } from '../src/domain/achievements';

/** The achievement rules of lua/lib/30-achievements.lua, called directly. */
const am = (k: number, v: number, more: Partial<ProgramMetricAchievement> = {}): ProgramMetricAchievement => ({ i: `a${k}`, k, v, ms: 1, ua: [], ea: [], ...more });
const done = (r: { code: string; achievements?: string }) => (r.code === 'OK' ? (JSON.parse(r.achievements!) as { i: string }[]).map((a) => a.i) : null);

t.test('metric achievements complete once, when the total reaches them, lowest first', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog: Partial<PointsProgram> = { am: [am(1, 5), am(2, 10), am(3, 10, { ua: [['plan', 'pro']] })] };
  t.same(done(await lua.event(tk, { userId: 'u', value: 4 }, prog)), []);
  t.same(done(await lua.event(tk, { userId: 'u', value: 7 }, prog)), ['a1', 'a2'], 'both passed at once; a3 filtered out');
  t.same(done(await lua.event(tk, { userId: 'u', value: 7 }, prog)), [], 'never twice');
  t.ok(await lua.redis.hget(tk.user('u'), achievedField(2)));
  t.equal(await lua.redis.hget(tk.stats, completionsField(2)), '1');
});

t.test('completing one pays its achievement triggers and may complete a composite', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog: Partial<PointsProgram> = {
    am: [am(1, 1), am(2, 2)],
    ac: [{ i: 'all', k: 3, pre: [1, 2], ua: [] }, { i: 'never', k: 4, pre: [1, -1], ua: [] }],
    apt: { 3: [{ i: 't', v: 'v', k: 1, s: 1, si: 'sys', p: 100, ua: [], b: 0 }] },
  };
  const first = await lua.event(tk, { userId: 'u', value: 1 }, prog);
  t.same(done(first), ['a1']);
  t.equal(pointsOf(first), undefined);
  const second = await lua.event(tk, { userId: 'u', value: 1 }, prog);
  t.same(done(second), ['a2', 'all'], 'the composite follows its last prerequisite; an unknown one never completes');
  t.equal(pointsOf(second)?.a, 100, "the composite's trigger paid");
});

t.test('streak achievements complete when the streak reaches their length', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog: Partial<PointsProgram> = { sk: { ...streakProgram(null), act: 'd', th: { 1: 1 } }, as: [{ i: 's3', k: 1, len: 3, ua: [] }] };
  const got: (string[] | null)[] = [];
  for (const date of ['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13']) {
    got.push(done(await lua.event(tk, { userId: 'u', value: 1, date, now: Date.parse(`${date}T12:00:00Z`), streak: dayArg(date) }, prog)));
  }
  t.same(got, [[], [], ['s3'], []]);
});
