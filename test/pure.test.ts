import t from 'tap';
import { periodDates, periodIndexes, WEEK_STARTS } from '../src/domain/streaks';
import { packScore, runDates, runIndex, scoreTick, scoreValue, TIE_BITS } from '../src/domain/leaderboards';
import { changedFields, changeOwner, decodeChange, recordFields, unpackedFields } from '../src/engine/change-record';
import { PACKED_EVENT, RECORD_SEPARATOR } from '../src/domain/change-record';
import { waves } from '../src/batches/queue';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { derivedId } from '../src/domain/ids';

/* Pure logic, no server: period indexes and run dates, score packing, change records. */

t.test('streak periods: each date lies in the period its index names', async (t) => {
  for (const weekStart of WEEK_STARTS) {
    for (const date of ['2024-02-28', '2024-02-29', '2024-03-01', '2024-12-31', '2025-01-01', '2026-11-23']) {
      const i = periodIndexes(date, weekStart);
      for (const f of ['d', 'w', 'm'] as const) {
        const { start, end } = periodDates(f, i[f], weekStart);
        t.ok(start <= date && date <= end, `${date} in ${f} period ${start}..${end} (${weekStart})`);
      }
    }
  }
  // A Monday starts a Monday week and ends a Tuesday one.
  t.equal(periodDates('w', periodIndexes('2026-11-23', 'monday').w, 'monday').start, '2026-11-23');
  t.equal(periodDates('w', periodIndexes('2026-11-23', 'tuesday').w, 'tuesday').end, '2026-11-23');
  t.same(periodDates('m', periodIndexes('2024-02-10', 'monday').m, 'monday'), { start: '2024-02-01', end: '2024-02-29' });
  t.equal(periodIndexes('2024-03-01', 'monday').d - periodIndexes('2024-02-28', 'monday').d, 2, 'leap day counted');
});

t.test('leaderboard runs: index and dates agree', async (t) => {
  const daily = { start: '2026-01-01', end: null, runUnit: 'day' as const, runInterval: 7 };
  t.equal(runIndex(daily, '2025-12-31'), null, 'before the start');
  t.equal(runIndex(daily, '2026-01-07'), 0);
  t.equal(runIndex(daily, '2026-01-08'), 1);
  t.same(runDates(daily, 1), { start: '2026-01-08', end: '2026-01-14' });
  const monthly = { start: '2026-01-31', end: null, runUnit: 'month' as const, runInterval: 1 };
  for (const date of ['2026-01-31', '2026-02-27', '2026-03-01', '2026-06-15', '2027-01-30']) {
    const r = runIndex(monthly, date)!;
    const d = runDates(monthly, r);
    t.ok(d.start <= date && (d.end === null || date <= d.end), `${date} in run ${r} ${d.start}..${d.end}`);
  }
  t.equal(runIndex({ start: '2026-01-01', runUnit: null, runInterval: null }, '2030-01-01'), 0, 'perpetual: one run');
});

t.test('board scores pack value and tie', async (t) => {
  for (const value of [0, 1, 17, -5, 2 ** 31 - 1, -(2 ** 31)]) {
    for (const tick of [0, 1, 1000, TIE_BITS - 1]) {
      const s = packScore(value, tick);
      t.equal(scoreValue(s), value, `value of ${value}@${tick}`);
      t.equal(scoreValue(String(s)), value, 'from a string too');
      t.equal(scoreTick(s), tick, `tick of ${value}@${tick}`);
    }
  }
  t.ok(packScore(10, 1) > packScore(10, 2), 'equal values: the earlier update ranks higher');
  t.ok(packScore(11, 1_000_000) > packScore(10, 0), 'a higher value always ranks higher');
});

t.test('change records decode once, into a tagged union', async (t) => {
  const event = { id: 'e1', u: 'u1', m: 'm1', v: 2, a: null, at: 1000, d: '2026-11-23', ik: null };
  const ev = decodeChange([
    'k', 'ev', 'e', JSON.stringify(event), 't', '5', 'c', '1000', 'p', '{"n":"Ann"}',
    'pa', '{"1":{"b":0,"a":10,"aw":{}}}', 'ach', '{}', 'stk', '[{"f":"d","p":1,"l":1,"fr":0,"pa":0}]',
    'lb', '{}', 'uf', '["m1","5","x",null]',
  ]);
  if (ev.kind !== 'ev') throw new Error('kind');
  t.same(ev.event, event);
  t.equal(ev.userId, 'u1');
  t.equal(ev.opId, 'e1');
  t.equal(ev.date, '2026-11-23');
  t.equal(ev.at, 1000);
  t.equal(ev.total, '5');
  t.same(ev.points, { 1: { b: 0, a: 10, aw: {} } });
  t.same(ev.completions, [], "Lua's empty list ('{}') is empty");
  t.same(ev.boards, []);
  t.same(ev.periods, [{ f: 'd', p: 1, l: 1, fr: 0, pa: 0 }]);
  t.same([...changedFields(ev.userFields)], [['m1', '5'], ['x', null]], 'changed fields: a value, and a deletion');
  t.same([...changedFields('{"m1":"5","x":false}')], [['m1', '5'], ['x', null]], 'a record from before the array form reads the same');
  t.equal(ev.created, '1000');

  // The same event packed into one field, as lua/event.lua writes it: read alike, and named alike (the webhook deriver's ids).
  const flat = [
    'k', 'ev', 'e', JSON.stringify(event), 't', '5', 'c', '1000', 'p', '{"n":"Ann"}',
    'pa', '{"1":{"b":0,"a":10,"aw":{}}}', 'ach', '{}', 'stk', '[{"f":"d","p":1,"l":1,"fr":0,"pa":0}]',
    'lb', '{}', 'lg', '[]', 'uf', '["m1","5","x",null]',
  ];
  const values = PACKED_EVENT.map((f) => flat[flat.indexOf(f) + 1]!);
  const packed = ['ev', values.join(RECORD_SEPARATOR)];
  t.same({ ...decodeChange(packed), raw: null }, { ...decodeChange(flat), raw: null }, 'a packed event decodes as its fields one by one');
  t.equal(decodeChange(packed).raw, packed, 'and keeps the entry as read');
  t.equal(JSON.stringify(recordFields(decodeChange(packed).raw)), JSON.stringify(recordFields(flat)), 'its fields in the same order');
  t.same(unpackedFields(packed), flat, 'unpacked: the fields one by one');
  t.equal(unpackedFields(flat), flat, 'a record written so stays');
  t.equal(changeOwner(packed), 'u1');
  t.throws(() => decodeChange(['ev', values.slice(1).join(RECORD_SEPARATOR)]), /packed event of 9 fields/);
  t.same(unpackedFields(['ev', 'x']), ['ev', 'x'], 'an unreadable one is kept as it came');

  const us = decodeChange(['k', 'us', 'o', 'review', 'u', 'u2', 'at', '2000', 'e', 'op', 'd', '2026-11-22', 'c', '', 'p', '', 'pa', '{}', 'uf', '{}']);
  if (us.kind !== 'us') throw new Error('kind');
  t.equal(us.userId, 'u2');
  t.equal(us.at, 2000);
  t.equal(us.origin, 'review');
  t.equal(us.points, null, 'no points: null');
  t.same([...changedFields(us.userFields)], []);
  t.same(recordFields(us.raw).k, 'us', 'the fields as written are kept');

  t.same(decodeChange(['k', 'er']).kind, 'er');
  t.throws(() => decodeChange(['k', 'zz']), /unknown kind/);
  t.throws(() => decodeChange(['k', 'ev', 'e', '{not json']));
  t.equal(changeOwner(['k', 'ev', 'e', JSON.stringify(event)]), 'u1');
  t.equal(changeOwner(['k', 'tg', 'u', 'u3']), 'u3');
  t.equal(changeOwner(['k', 'er']), null);
});

t.test('batch runs: in order, no user twice in a run', async (t) => {
  const items = ['a', 'b', 'a', 'c', 'd', 'c', 'c', 'e'].map((id) => ({ user: { id } }));
  t.same(waves(items), [[0, 1], [2, 3, 4], [5], [6, 7]]);
  t.same(waves([]), []);
  t.same(waves(items).flat(), items.map((_, i) => i), 'every item once, in batch order');
});

// Stored rows and webhook deliveries are named by these ids: a replayed
// batch or a restarted job must derive exactly the ids it derived before.
t.test('a derived id is the SHA-256 of its parts (joined by NUL, one more NUL after) in the UUID version 5 layout', async (t) => {
  const expected = (parts: string[]) => {
    const hex = createHash('sha256').update(parts.join('\0')).update('\0').digest('hex');
    const variant = ((parseInt(hex[16]!, 16) & 3) | 8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  t.equal(derivedId('award', 'e1', 't1', '0'), 'ed6e45b8-cad0-5e10-bb58-dea76d847161', 'an id stored by an earlier version');
  fc.assert(fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 5 }), (parts) => {
    const id = derivedId(...parts);
    t.equal(id, expected(parts));
    t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }), { numRuns: 300 });
});
