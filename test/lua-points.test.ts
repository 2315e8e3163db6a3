import t from 'tap';
import { luaRig, pointsOf } from './helpers/lua';
import type { ProgramBoost, ProgramMetricTrigger, ProgramTrigger } from '../src/domain/points';
import { attributeField, pointsField } from '../src/domain/user-hash';

/** The points rules of lua/lib/20-points.lua, called directly (no HTTP). */
const trigger = (p: number, more: Partial<ProgramTrigger> = {}): ProgramTrigger => ({ i: `t${p}`, v: 'v', k: 1, s: 1, si: 'sys', p, ua: [], b: 0, ...more });
const metric = (th: number, p: number, more: Partial<ProgramMetricTrigger> = {}): ProgramMetricTrigger => ({ ...trigger(p), th, ea: [], ...more });
const boost = (m: number, r: ProgramBoost['r'], more: Partial<ProgramBoost> = {}): ProgramBoost => ({ i: `b${m}${r}`, s: 1, m, r, st: '2026-03-01', en: '', ua: [], ...more });

t.test('metric triggers pay once per new multiple of the threshold, never for a fall or a climb back', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog = { mt: [metric(10, 5)] };
  const totals: (number | undefined)[] = [];
  for (const value of [4, 7, 25, -20, 20, 4]) totals.push(pointsOf(await lua.event(tk, { userId: 'u', value }, prog))?.a);
  // Totals 4, 11, 36, 16, 36, 40: multiples 0, 1, 3, (1), (3), 4.
  t.same(totals, [undefined, 5, 15, undefined, undefined, 20]);
  t.equal(await lua.redis.hget(tk.user('u'), pointsField(1)), '20');
});

t.test('trigger filters: event and user attributes must match', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog = { mt: [metric(1, 2, { ea: [['source', 'web']], ua: [['plan', 'pro']] })] };
  const pro = JSON.stringify({ [attributeField('plan')]: 'pro' });
  t.equal(pointsOf(await lua.event(tk, { userId: 'u', value: 1, attributes: '{"source":"app"}', patch: pro }, prog)), undefined, 'other event attribute');
  t.equal(pointsOf(await lua.event(tk, { userId: 'v', value: 1, attributes: '{"source":"web"}' }, prog)), undefined, 'user without the attribute');
  t.equal(pointsOf(await lua.event(tk, { userId: 'u', value: 1, attributes: '{"source":"web"}' }, prog))?.a, 2, 'both match');
});

t.test('boosts multiply in their dates and round as they say; several round against the user', async (t) => {
  const lua = await luaRig(t);
  const cases: [ProgramBoost[], number][] = [
    [[boost(1.5, 'down')], 7],
    [[boost(1.5, 'up')], 8],
    [[boost(1.3, 'nearest')], 7],
    [[boost(1.5, 'up'), boost(1.1, 'down')], 8], // 5 * 1.65 = 8.25: down
    [[boost(2, 'down', { en: '2026-03-09' })], 5], // ended the day before
    [[boost(2, 'down', { st: '2026-03-11' })], 5], // not begun
    [[boost(2, 'down', { ua: [['plan', 'pro']] })], 5], // filtered out
  ];
  for (const [bo, expected] of cases) {
    const tk = await lua.tenant();
    const r = await lua.event(tk, { userId: 'u', value: 1 }, { mt: [metric(1, 5)], bo });
    t.equal(pointsOf(r)?.a, expected, JSON.stringify(bo));
  }
  const tk = await lua.tenant();
  const own = await lua.event(tk, { userId: 'u', value: 1, userBoosts: [boost(3, 'down')] }, { mt: [metric(1, 5)] });
  t.equal(pointsOf(own)?.a, 15, "the user's own boosts count too");
});

t.test('maxPoints clips awards; a system at its cap gets no award at all', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog = { mt: [metric(1, 5)], max: { 1: 12 } };
  const got: (number | undefined)[] = [];
  for (let i = 0; i < 4; i++) got.push(pointsOf(await lua.event(tk, { userId: 'u', value: 1 }, prog))?.aw.at(-1)?.a);
  t.same(got, [5, 5, 2, undefined]);
});

t.test('a deduction that would go below zero blocks the whole event when the trigger says so', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const r = await lua.event(tk, { userId: 'u', value: 1 }, { mt: [metric(1, -10, { b: 1 })] });
  t.same(r, { code: 'BLOCKED', systemSlot: '1' });
  t.equal(await lua.redis.exists(tk.user('u')), 0, 'nothing written, the user not even created');
  const tk2 = await lua.tenant();
  const free = await lua.event(tk2, { userId: 'u', value: 1 }, { mt: [metric(1, -10)] });
  t.equal(pointsOf(free)?.a, -10, 'without block it goes through');
});

t.test('user creation triggers pay once, on the first event', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const prog = { uc: [trigger(50)] };
  t.equal(pointsOf(await lua.event(tk, { userId: 'u', value: 1 }, prog))?.a, 50);
  t.equal(pointsOf(await lua.event(tk, { userId: 'u', value: 1 }, prog)), undefined);
});
