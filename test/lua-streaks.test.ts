import t from 'tap';
import { dayArg, luaRig } from './helpers/lua';
import { streakCall } from '../src/engine';
import { dayNumber } from '../src/domain/time';
import { programText } from '../src/domain/points';
import type { StreakProgram } from '../src/domain/streaks';
import { program } from './helpers/lua';

/** The streak rules of lua/lib/15-streaks.lua (daily frequency), called directly. */
const sk = (more: Partial<StreakProgram> = {}): StreakProgram => ({ act: 'd', mode: 'all', th: { 1: 1 }, ini: 0, ei: 0, ea: 0, max: 0, wo: 0, ...more });
const at = (date: string) => Date.parse(`${date}T12:00:00Z`);
interface Reply { len: number; lost: number; x: number; fz: number }

async function rig(t: { teardown(fn: () => unknown): void }, s: StreakProgram) {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  return {
    lua,
    tk,
    async day(date: string, value = 1): Promise<Reply> {
      const r = await lua.event(tk, { userId: 'u', value, date, now: at(date), streak: dayArg(date) }, { sk: s });
      if (r.code !== 'OK') throw new Error(r.code);
      return JSON.parse(r.streak) as Reply;
    },
  };
}

t.test('a day with the threshold met extends once; a missed day breaks it', async (t) => {
  const { day } = await rig(t, sk({ th: { 1: 3 } }));
  t.match(await day('2026-03-10', 2), { len: 0, x: 0 }, 'under the threshold');
  t.match(await day('2026-03-10', 1), { len: 1, x: 1 }, 'the day reaches it');
  t.match(await day('2026-03-10', 5), { len: 1, x: 0 }, 'once a day');
  t.match(await day('2026-03-11', 3), { len: 2, x: 1 });
  t.match(await day('2026-03-13', 3), { len: 1, x: 1, lost: 2 }, 'the 12th was missed: lost, started again');
});

t.test('a metric outside the rule does not count', async (t) => {
  const { lua, tk } = await rig(t, sk());
  const r = await lua.event(tk, { userId: 'u', value: 5, metricSlot: 2, date: '2026-03-10', now: at('2026-03-10'), streak: dayArg('2026-03-10') }, { sk: sk() });
  t.match(JSON.parse((r as { streak: string }).streak), { len: 0, x: 0 });
});

t.test('freezes cover missed days while they last', async (t) => {
  const { day } = await rig(t, sk({ ini: 1, max: 2 }));
  t.match(await day('2026-03-10'), { len: 1, fz: 1 });
  t.match(await day('2026-03-12'), { len: 2, fz: 0 }, 'the 11th spent the freeze');
  t.match(await day('2026-03-14'), { len: 1, fz: 0, lost: 2 }, 'none left for the 13th');
});

t.test('a pause holds the length over the days it covers', async (t) => {
  const { lua, tk, day } = await rig(t, sk());
  t.match(await day('2026-03-10'), { len: 1 });
  const d = dayNumber('2026-03-11')!;
  const paused = await streakCall(lua.engine, tk, 'streak_admin', {
    ver: '1', now: at('2026-03-11'), userId: 'u', program: programText(program({ sk: sk() })), streak: dayArg('2026-03-11'),
    op: 'pauses', pauses: JSON.stringify([[d, d + 1, 'p1']]), zone: 'UTC',
  });
  t.equal(paused.code, 'OK');
  t.match(await day('2026-03-13'), { len: 2, lost: 0 }, 'the 11th and 12th were paused');
  t.match(await day('2026-03-15'), { len: 1, lost: 2 }, 'the 14th was not');
});
