import t from 'tap';
import { luaRig } from './helpers/lua';
import { boardReadCall } from '../src/engine';
import { attributeField } from '../src/domain/user-hash';
import { scoreValue, type EventBoard, type ScriptBoard } from '../src/domain/leaderboards';

/** The leaderboard rules of lua/lib/40-leaderboards.lua, called directly. */
const board = (more: Partial<EventBoard> = {}): EventBoard => ({ k: 1, i: 'b1', r: 0, rb: 'm', ms: 1, ss: -1, rep: 0, mx: 3, bd: [], ...more });
const changes = (r: { code: string; boards?: string }) => (r.code === 'OK' ? (JSON.parse(r.boards!) as ScriptBoard[]) : []);

t.test('ranks by value; equal values rank by who reached them first; the limit evicts the lowest', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const boards = [board()];
  for (const [userId, value] of [['a', 10], ['b', 20], ['c', 10]] as const) await lua.event(tk, { userId, value, boards });
  const read = async () => (await boardReadCall(lua.engine, tk, { board: tk.board(1, 0, []), first: 0, last: 9, userId: '' })).entries.map((e) => [e.userId, scoreValue(e.score)]);
  t.same(await read(), [['b', 20], ['a', 10], ['c', 10]], 'a reached 10 before c');
  const d = changes(await lua.event(tk, { userId: 'd', value: 5, boards }));
  t.match(d, [{ rk: -1, th: 10 }], 'below a full board: no rank, the threshold to beat');
  const e = changes(await lua.event(tk, { userId: 'e', value: 15, boards }));
  t.match(e, [{ rk: 2, pr: -1, ev: ['c'] }], 'joins second and pushes the last out');
  t.same(await read(), [['b', 20], ['e', 15], ['a', 10]]);
  const c = changes(await lua.event(tk, { userId: 'a', value: 10, boards }));
  t.match(c, [{ rk: 2, pr: 3, pv: 10, nv: 20 }], 'a ties b at 20 and ranks after b, who was there first');
});

t.test('a board with a breakdown ranks each group apart; a user without the attribute is not ranked', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const boards = [board({ bd: ['country', 'plan'] })];
  const join = (userId: string, value: number, attrs: Record<string, string>) =>
    lua.event(tk, { userId, value, boards, patch: JSON.stringify(Object.fromEntries(Object.entries(attrs).map(([k, v]) => [attributeField(k), v]))) });
  t.match(changes(await join('a', 5, { country: 'fr', plan: 'pro' })), [{ rk: 1, g: ['fr', 'pro'] }]);
  t.match(changes(await join('b', 3, { country: 'de', plan: 'pro' })), [{ rk: 1, g: ['de', 'pro'] }], 'first in its own group');
  t.match(changes(await join('c', 9, { country: 'fr', plan: 'pro' })), [{ rk: 1 }]);
  t.same(changes(await join('d', 9, { country: 'fr' })), [], 'no plan: no group');
  const fr = await boardReadCall(lua.engine, tk, { board: tk.board(1, 0, ['fr', 'pro']), first: 0, last: 9, userId: '' });
  t.same(fr.entries.map((e) => e.userId), ['c', 'a']);
});

t.test('a repeating board counts each run from zero, not the metric total', async (t) => {
  const lua = await luaRig(t);
  const tk = await lua.tenant();
  const boards = [board({ k: 2, rep: 1 })];
  await lua.event(tk, { userId: 'a', value: 4, boards });
  const next = await lua.event(tk, { userId: 'a', value: 4, boards: [board({ k: 2, rep: 1, r: 1 })] });
  t.match(changes(next), [{ r: 1, nv: 4, pr: -1 }], 'a new run starts from zero');
});
