import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  achievementCompleteCall, boardReadCall, configPublishCall, Engine, eventCall, LUA_DIR, rateLimitCall, retentionNextCall, SCRIPTS, ScriptName,
  leagueCloseCall, leagueLeaveCall, streakCall, userEraseCall, userJobCall, userReadCall, userUpsertCall,
} from '../src/engine';
import { Keys } from '../src/redis/keys';
import type { ProgramText } from '../src/domain/points';

/**
 * Each Lua script declares its KEYS by name in its header; the typed call
 * (src/engine/calls) must pass exactly those, in that order, and as many as
 * library.ts counts. Checked against a recording engine: nothing reaches Redis.
 */
const keys = new Keys('keys-test:');
const tk = keys.tenant(3);
const U = 'u1';
const BUCKET = 7;
const BOARD = tk.board(2, 0, []);
const RATE = keys.rateLimit('k1');
const NAMES = new Map<string, string>([
  [tk.config, 'config'], [tk.user(U), 'user'], [tk.stream, 'stream'], [tk.stats, 'stats'], [tk.due, 'due'], [tk.boardTicks, 'boardTicks'],
  [tk.retentionDue, 'retentionDue'], [tk.recent(U), 'recent'], [tk.idempotency(BUCKET), 'idempotency'], [BOARD, 'board'], [RATE, 'rateLimit'],
  [tk.leagueRun(1, 5), 'leagueRun'], [tk.cohort(1, 5, 0, 1), 'cohort'], [tk.leagueTiers(1), 'leagueTiers'],
]);

/** The names a script's header gives its KEYS ('-- KEYS (named as in src/redis/keys.ts): 1 config, 2 user, ...'). */
function declaredKeys(script: ScriptName): string[] {
  const text = readFileSync(path.join(LUA_DIR, `${script}.lua`), 'utf8');
  const block = /^-- KEYS \(named as in src\/redis\/keys\.ts\): ([\s\S]*?)(?=^-- (?:ARGV|Replies)|^[^-])/m.exec(text);
  if (!block) return [];
  const out: string[] = [];
  for (const [, n, name] of block[1]!.matchAll(/(\d+) (\w+)/g)) {
    if (Number(n) !== out.length + 1) throw new Error(`${script}: key ${n} declared out of order`);
    out.push(name!);
  }
  return out;
}

const sent = new Map<ScriptName, string[]>();
const REPLIES: Partial<Record<ScriptName, unknown>> = {
  board_read: [], config_publish: 1, rate_limit: [1, 0, 0, 0], retention_next: 1, user_erase: [1, '1-0'],
};
const engine = {
  fcall: async (name: ScriptName, k: string[]) => {
    sent.set(name, k);
    return REPLIES[name] ?? ['STALE'];
  },
  events: {
    call: async (_tenant: string, k: string[]) => {
      sent.set('event', k);
      return ['STALE'];
    },
  },
} as unknown as Engine;

const program = '{}' as ProgramText;
const op = { ver: '1', now: 0, userId: U, program, userBoosts: [], date: '2026-01-01', opId: 'op' };
/** One call per script: the compiler makes a new script add its own. */
const CALLS: Record<ScriptName, () => Promise<unknown>> = {
  event: () => eventCall(engine, tk, {
    ver: '1', metricSlot: 1, value: 1, now: 0, idempotency: { bucket: BUCKET, member: 'm' }, zone: 'UTC', patch: '{}', record: '{}', programName: 1,
    userBoosts: [], date: '2026-01-01', streak: '', boards: [], maxBacklog: 1, userId: U, attributes: '', program: '', retentionDue: '', eventId: 'e', leagues: '',
  }),
  user_upsert: () => userUpsertCall(engine, tk, { ...op, patch: '{}', mode: 'upsert' }),
  time_grant: () => userJobCall(engine, tk, 'time_grant', op),
  achievement_complete: () => achievementCompleteCall(engine, tk, { ...op, patch: '{}', achievementSlot: 1, achievementId: 'a', userAttributes: '[]' }),
  user_review: () => userJobCall(engine, tk, 'user_review', op),
  streak_read: () => streakCall(engine, tk, 'streak_read', { ver: '1', now: 0, userId: U, program, streak: '0,0,0,d', op: '', pauses: '', zone: 'UTC' }),
  streak_admin: () => streakCall(engine, tk, 'streak_admin', { ver: '1', now: 0, userId: U, program, streak: '0,0,0,d', op: 'freeze', pauses: '', zone: 'UTC' }),
  user_read: () => userReadCall(engine, tk, { ver: '1', userId: U }),
  board_read: () => boardReadCall(engine, tk, { board: BOARD, first: 0, last: 9, userId: '' }),
  config_publish: () => configPublishCall(engine, tk, { ver: '1', group: 'g', fields: [] }),
  rate_limit: () => rateLimitCall(engine, { stateKey: RATE, now: 0, intervalMicros: 1000, burst: 1 }),
  user_erase: () => userEraseCall(engine, tk, { userId: U, boards: [BOARD], idempotency: [{ bucket: BUCKET, member: 'm' }] }),
  retention_next: () => retentionNextCall(engine, tk, { userId: U, score: '1', next: null }),
  league_close: () => leagueCloseCall(engine, tk, { slot: 1, run: 5 }),
  league_leave: () => leagueLeaveCall(engine, tk, { slot: 1, userId: U, place: { run: 5, tier: 0, no: 1 } }),
};

t.test('each script is called with the keys its header declares, in order', async (t) => {
  for (const script of Object.keys(SCRIPTS) as ScriptName[]) {
    await CALLS[script]();
    const declared = declaredKeys(script);
    const passed = (sent.get(script) ?? []).map((k) => NAMES.get(k) ?? `unknown key ${k}`);
    t.equal(declared.length, SCRIPTS[script], `${script}: the header declares as many keys as library.ts counts`);
    t.same(passed.slice(0, declared.length), declared, `${script}: keys as declared`);
    // user_erase alone takes more: the user's board sets, then their idempotency buckets.
    t.same(passed.slice(declared.length), script === 'user_erase' ? ['board', 'idempotency'] : [], `${script}: nothing more`);
  }
});

t.test('the header parser reads what it should (a sanity check)', async (t) => {
  t.same(declaredKeys('user_read'), ['config', 'user', 'stream', 'recent']);
  t.same(declaredKeys('event').length, 9);
});
