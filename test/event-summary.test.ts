import t from 'tap';
import { startServer } from './helpers/harness';

t.test('metric event summaries', async (t) => {
  const s = await startServer(t);
  await s.metrics(['km']);
  const at = async (iso: string, value: number, tz?: string) => {
    s.clock.set(iso);
    const r = await s.event('km', { user: { id: 'runner', ...(tz ? { tz } : {}) }, value });
    t.equal(r.status, 201);
  };
  // Auckland is UTC+13 in March: 11:30 UTC on the 1st is already the 2nd there.
  await at('2026-03-01T09:00:00Z', 5, 'Pacific/Auckland'); // local 2026-03-01 22:00
  await at('2026-03-01T11:30:00Z', 2.5); // local 2026-03-02 00:30 (zone remembered)
  await at('2026-03-04T00:00:00Z', 10); // local 03-04
  await at('2026-03-20T00:00:00Z', -1); // local 03-20
  await at('2026-04-02T00:00:00Z', 4); // local 04-02
  await s.app.flusher.drain();

  const get = (q: string) => s.call('GET', `/v1/users/runner/metrics/km/event-summary?${q}`);

  const daily = await get('aggregation=daily&startDate=2026-03-01&endDate=2026-03-04');
  t.equal(daily.status, 200);
  t.same(daily.body, [
    { date: '2026-03-01', total: 5, change: 5 },
    { date: '2026-03-02', total: 7.5, change: 2.5 },
    { date: '2026-03-03', total: 7.5, change: 0 },
    { date: '2026-03-04', total: 17.5, change: 10 },
  ]);

  const later = await get('aggregation=daily&start_date=2026-03-03&end_date=2026-03-03');
  t.same(later.body, [{ date: '2026-03-03', total: 7.5, change: 0 }], 'snake_case dates work; the total carries what came before');

  const weekly = await get('aggregation=weekly&startDate=2026-03-01&endDate=2026-03-22');
  t.same(weekly.body, [
    { date: '2026-02-23', total: 5, change: 5 },
    { date: '2026-03-02', total: 17.5, change: 12.5 },
    { date: '2026-03-09', total: 17.5, change: 0 },
    { date: '2026-03-16', total: 16.5, change: -1 },
  ]);

  const monthly = await get('aggregation=monthly&startDate=2026-02-10&endDate=2026-04-30');
  t.same(monthly.body, [
    { date: '2026-02-01', total: 0, change: 0 },
    { date: '2026-03-01', total: 16.5, change: 16.5 },
    { date: '2026-04-01', total: 20.5, change: 4 },
  ]);

  t.equal((await get('aggregation=hourly&startDate=2026-03-01&endDate=2026-03-02')).status, 422);
  t.equal((await get('aggregation=daily&startDate=2026-02-30&endDate=2026-03-02')).status, 422);
  t.equal((await get('aggregation=daily&startDate=2026-03-02')).status, 422);
  t.equal((await get('aggregation=daily&startDate=2026-03-05&endDate=2026-03-01')).status, 422);
  t.equal((await get('aggregation=daily&startDate=2025-01-01&endDate=2026-03-01')).status, 422, 'over 400 days');
  t.equal((await s.call('GET', '/v1/users/nobody/metrics/km/event-summary?aggregation=daily&startDate=2026-03-01&endDate=2026-03-02')).status, 404);
});
