import t from 'tap';
import { startServer, TestServer } from './helpers/harness';

const DAY = 86_400_000;
const HOUR = 3_600_000;

async function pointsOf(s: TestServer, user: string, key = 'xp') {
  await s.drain();
  return (await s.call('GET', `/v1/users/${user}/points/${key}?awards=100`)).body;
}

t.test('time triggers across an outage, with three schedulers at once', async (t) => {
  const a = await startServer(t);
  const share = { DATABASE_SCHEMA: a.schema, REDIS_KEY_PREFIX: a.prefix, ADMIN_API_KEY: a.adminKey };
  const b = await startServer(t, share);
  const c = await startServer(t, share);
  const all = [a, b, c];
  const setAll = (ms: number) => all.forEach((s) => s.clock.set(ms));
  const start = a.clock.now();
  await a.metrics(['m']);

  // A user who exists before any time trigger.
  await a.event('m', { user: { id: 'early' }, value: 1 });
  setAll(start + HOUR);
  const created = await a.call('POST', '/admin/v1/points', {
    body: [{ name: 'XP', key: 'xp', triggers: [{ type: 'time', timeUnit: 'days', timeInterval: 1, points: 10, status: 'active' }] }],
  });
  const xp = created.body.created[0];
  // A user who arrives after.
  setAll(start + 2 * HOUR);
  await b.event('m', { user: { id: 'late' }, value: 1 });

  t.equal(await a.app.scheduler.runOnce(), 2, 'both users are scheduled');
  t.equal((await pointsOf(a, 'early')).total, 0, 'nothing before a full interval');

  // Three days and a bit later, every process runs the scheduler at the same moment.
  setAll(start + 3 * DAY + 3 * HOUR);
  await Promise.all(all.map((s) => s.app.scheduler.runOnce()));
  const early = await pointsOf(a, 'early');
  t.equal(early.total, 30, 'each missed day granted once: counted from the activation');
  t.equal(early.awards.length, 3);
  t.ok(early.awards.every((x: { awarded: number; trigger: { type: string; timeUnit: string } }) => x.awarded === 10 && x.trigger.type === 'time' && x.trigger.timeUnit === 'day'));
  t.equal((await pointsOf(a, 'late')).total, 30, 'counted from the user creation');

  await Promise.all(all.map((s) => s.app.scheduler.runOnce()));
  t.equal((await pointsOf(a, 'early')).total, 30, 'running again grants nothing more');

  // Deactivate, wait, re-activate: intervals count again from the re-activation.
  const trig = xp.triggers[0];
  await a.call('PATCH', `/admin/v1/points/${xp.id}/triggers`, { body: [{ id: trig.id, status: 'inactive' }] });
  setAll(start + 6 * DAY);
  await a.app.scheduler.runOnce();
  t.equal((await pointsOf(a, 'early')).total, 30, 'an inactive trigger grants nothing');
  await a.call('PATCH', `/admin/v1/points/${xp.id}/triggers`, { body: [{ id: trig.id, status: 'active' }] });
  setAll(start + 7 * DAY + HOUR);
  await a.app.scheduler.runOnce();
  t.equal((await pointsOf(a, 'early')).total, 40, 'one day since re-activation');
});

t.test('hourly triggers, filters and the background loop', async (t) => {
  const s = await startServer(t, { SCHEDULER_INTERVAL_MS: '50' });
  await s.attributes([{ key: 'plan', type: 'user' }]);
  const plan = (await s.call('GET', '/admin/v1/attributes')).body[0].id;
  await s.call('POST', '/admin/v1/points', {
    body: [{
      name: 'Energy', key: 'energy', maxPoints: 5,
      triggers: [{ type: 'time', timeUnit: 'hours', timeInterval: 6, points: 2, status: 'active', userAttributes: [{ attributeId: plan, attributeValue: 'pro' }] }],
    }],
  });
  await s.call('POST', '/v1/users', { body: { id: 'pro', attributes: { plan: 'pro' } } });
  await s.call('POST', '/v1/users', { body: { id: 'free', attributes: { plan: 'free' } } });
  s.clock.advance(13 * HOUR);
  // No explicit call: the leased loop picks the work up by itself.
  let total = 0;
  for (let i = 0; i < 100 && total !== 4; i++) {
    await new Promise((r) => setTimeout(r, 50));
    total = (await s.call('GET', '/v1/users/pro/points/energy')).body.total;
  }
  t.equal(total, 4, 'two 6-hour intervals');
  t.equal((await s.call('GET', '/v1/users/free/points/energy')).body.total, 0, 'the filter keeps others out');
  s.clock.advance(24 * HOUR);
  for (let i = 0; i < 100 && total !== 5; i++) {
    await new Promise((r) => setTimeout(r, 50));
    total = (await s.call('GET', '/v1/users/pro/points/energy')).body.total;
  }
  t.equal(total, 5, 'capped at maxPoints');
});
