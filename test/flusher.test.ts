import t from 'tap';
import { sharedRedis, startServer } from './helpers/harness';

// At least once means a batch can arrive twice (a crash between commit and
// acknowledgement): the second time must change nothing in Postgres.
t.test('a replayed batch changes nothing', async (t) => {
  const s = await startServer(t);
  await s.app.flusher.stop(); // this test flushes by hand, so it can see the records first
  const { m } = await s.metrics(['m']);
  await s.call('POST', '/admin/v1/points', { body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'metric', metricId: m!.id, metricThreshold: 1, points: 2, status: 'active' }] }] });
  await s.call('POST', '/admin/v1/achievements', { body: [{ key: 'one', name: 'One', trigger: 'metric', metricId: m!.id, metricValue: 1, status: 'active' }] });
  for (const u of ['a', 'b', 'c']) await s.event('m', { user: { id: u, name: u.toUpperCase() }, value: 3 });

  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const records = await r.xrange(stream, '-', '+');
  t.equal(records.length, 3);
  await s.app.flusher.drain();
  t.equal(await r.xlen(stream), 0, 'acknowledged records are deleted');

  const snapshot = async () => {
    const q = (sql: string) => s.app.ctx.db.query(sql).then((x) => x.rows);
    return {
      events: await q('SELECT id, user_id, value::text, total::text FROM events ORDER BY id'),
      awards: await q('SELECT id, awarded, total FROM points_awards ORDER BY id'),
      completions: await q('SELECT achievement_id, user_id FROM achievement_completions ORDER BY user_id'),
      users: await q('SELECT id, name FROM users ORDER BY id'),
      fields: await q('SELECT user_id, field, value FROM user_fields ORDER BY user_id, field'),
    };
  };
  const once = await snapshot();
  t.equal(once.events.length, 3);
  t.equal(once.awards.length, 3);
  t.equal(once.completions.length, 3);

  // The same records again, as a redelivery would bring them.
  for (const [, fields] of records) await r.xadd(stream, '*', ...fields);
  await s.app.flusher.drain();
  t.same(await snapshot(), once);
});
