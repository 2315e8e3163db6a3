import { METRICS } from './load';

/** The bench's tenant: a realistic configuration, and its users. */
export const ZONES = [
  'Pacific/Pago_Pago', 'Pacific/Honolulu', 'America/Anchorage', 'America/Los_Angeles', 'America/Denver', 'America/Chicago',
  'America/New_York', 'America/Sao_Paulo', 'Atlantic/Azores', 'Europe/London', 'Europe/Berlin', 'Europe/Athens', 'Europe/Moscow',
  'Asia/Dubai', 'Asia/Kolkata', 'Asia/Bangkok', 'Asia/Shanghai', 'Asia/Tokyo', 'Australia/Sydney', 'Pacific/Kiritimati',
];

export async function api(base: string, key: string, method: string, p: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}${p}`, { method, headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const out = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(out)}`);
  return out;
}

/**
 * The realistic configuration: 3 metrics, XP and energy, 10 achievements, a
 * daily streak, 3 boards. BENCH_CONFIG=minimal seeds the durable baseline's
 * work instead: the 3 metrics, each with a perpetual board of its own, so an
 * event adds to one total and moves one board (what Laurel's own machinery
 * costs, apart from the features).
 */
export async function seedConfig(base: string, key: string): Promise<void> {
  const m = (await api(base, key, 'POST', '/admin/v1/metrics', [
    { name: 'Lessons', key: 'lessons' }, { name: 'Words', key: 'words' }, { name: 'Minutes', key: 'minutes' },
  ])).created as { id: string; key: string }[];
  const id = (k: string) => m.find((x) => x.key === k)!.id;
  if (process.env.BENCH_CONFIG === 'minimal') {
    // The lessons board keeps the realistic one's key, so the top-10 read row still has a board.
    await api(base, key, 'POST', '/admin/v1/leaderboards', m.map((x) => (
      { key: x.key === 'lessons' ? 'all-time' : `all-time-${x.key}`, name: `All time ${x.key}`, rankBy: 'metric', metricId: x.id, start: '2020-01-01', status: 'active' })));
    return;
  }
  const xp = (await api(base, key, 'POST', '/admin/v1/points', [{
    name: 'XP', key: 'xp',
    levels: [{ name: 'Bronze', key: 'bronze', points: 0 }, { name: 'Silver', key: 'silver', points: 100 }, { name: 'Gold', key: 'gold', points: 1000 }],
    boosts: [{ name: 'Launch', start: '2020-01-01', multiplier: 1.5 }],
    triggers: [
      { type: 'metric', metricId: id('lessons'), metricThreshold: 1, points: 10, status: 'active' },
      { type: 'metric', metricId: id('words'), metricThreshold: 100, points: 5, status: 'active' },
      { type: 'metric', metricId: id('minutes'), metricThreshold: 10, points: 2, status: 'active' },
      { type: 'metric', metricId: id('lessons'), metricThreshold: 10, points: 50, status: 'active' },
    ],
  }])).created[0];
  await api(base, key, 'POST', '/admin/v1/points', [{
    name: 'Energy', key: 'energy', triggers: [{ type: 'metric', metricId: id('minutes'), metricThreshold: 1, points: -1, status: 'active' }],
  }]);
  await api(base, key, 'POST', '/admin/v1/achievements', [
    ...[1, 5, 10, 50, 100].map((v) => ({ key: `lessons-${v}`, name: `${v} lessons`, trigger: 'metric', metricId: id('lessons'), metricValue: v, status: 'active' })),
    ...[1000, 10000].map((v) => ({ key: `words-${v}`, name: `${v} words`, trigger: 'metric', metricId: id('words'), metricValue: v, status: 'active' })),
    ...[3, 7].map((v) => ({ key: `streak-${v}`, name: `${v}-day streak`, trigger: 'streak', streakLength: v, status: 'active' })),
    { key: 'onboarded', name: 'Onboarded', trigger: 'api', status: 'active' },
  ]);
  await api(base, key, 'PUT', '/admin/v1/streak', {
    enabled: true, frequency: 'daily', mode: 'any', metrics: [{ metricId: id('lessons'), threshold: 1 }, { metricId: id('minutes'), threshold: 10 }],
  });
  // Retention on (BENCH_RETENTION=0: off): every email-due webhook, so each event keeps its user's due time.
  if (process.env.BENCH_RETENTION !== '0') {
    await api(base, key, 'PUT', '/admin/v1/retention', {
      achievementEmails: { enabled: true }, recapEmails: { enabled: true, frequency: 'weekly' },
      reactivationEmails: { enabled: true }, streakReminderEmails: { enabled: true },
    });
  }
  const monday = new Date();
  monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
  await api(base, key, 'POST', '/admin/v1/leaderboards', [
    { key: 'all-time', name: 'All time', rankBy: 'metric', metricId: id('lessons'), start: '2020-01-01', status: 'active' },
    { key: 'weekly-xp', name: 'Weekly XP', rankBy: 'points', pointsSystemId: xp.id, start: monday.toISOString().slice(0, 10), runUnit: 'day', runInterval: 7, status: 'active' },
    { key: 'streaks', name: 'Streaks', rankBy: 'streak', start: '2020-01-01', status: 'active' },
  ]);
}

/** Create the users, 64 requests in flight. */
export async function seedUsers(base: string, key: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await api(base, key, 'POST', '/v1/users', { id: `user-${i}`, tz: ZONES[i % ZONES.length] });
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}

/**
 * `events` events of random seeded users over 16 connections (every second
 * one with an idempotency key), as the bench's load sends them, or with
 * `zones` each naming a time zone (a profile change the record carries).
 */
export async function sendEvents(base: string, key: string, o: { users: number; events: number; tag: string; zones: boolean }): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < o.events) {
      const n = sent++;
      const user = { id: `user-${Math.floor(Math.random() * o.users)}`, ...(o.zones ? { tz: ZONES[n % ZONES.length] } : {}) };
      const headers: Record<string, string> = { 'X-API-KEY': key, 'Content-Type': 'application/json' };
      if (n % 2) headers['Idempotency-Key'] = `${o.tag}-${n}`;
      await fetch(`${base}/v1/metrics/${METRICS[n % METRICS.length]}/event`, { method: 'POST', headers, body: JSON.stringify({ user, value: 1 + (n % 20) }) });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}
