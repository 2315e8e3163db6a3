import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/observability/log';
import { systemClock } from '../src/clock';
import { startApp } from '../src/app';
import { makePartitions } from '../src/store/event-partitions';
import { purgeKeys } from '../src/redis/purge';
import { DEFAULT_TENANT_ID } from '../src/store/migrations';
import { DailyRollups } from '../src/store/rollups';

/**
 * `npm run bench:analytics`: the console's analytics endpoints over a year of
 * one tenant. Rows are written straight into Postgres (what the flusher would
 * have written for that year), the closed days are summed as the scheduler
 * would have, then each endpoint is asked for the whole year and timed.
 * BENCH_EXPLAIN=1 prints the plans of the queries behind them (EXPLAIN ANALYZE).
 */
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
/** Events over the year (on average 30 active days per user by default). */
const EVENTS = Number(process.env.BENCH_EVENTS ?? USERS * 30);
const RUNS = 5;
const FROM = '2025-01-01';
const TO = '2025-12-31';

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const schema = `bench_analytics_${id}`;
  const adminKey = `admin_bench.${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `bench-${id}:`, ADMIN_API_KEY: adminKey, LOG_LEVEL: 'warn',
  });
  const app = await startApp(config, systemClock, createLogger('warn'), { http: true, background: false });
  const db = new Client({ connectionString: config.databaseUrl });
  await db.connect();
  await db.query(`SET search_path TO "${schema}"`);
  const url = `http://127.0.0.1:${app.port}`;
  const call = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { 'X-API-KEY': adminKey } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'X-API-KEY': adminKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return ((await res.json()) as { created: { id: string }[] }).created;
  };
  try {
    const metrics = await post('/admin/v1/metrics', ['lessons', 'quizzes', 'minutes'].map((key) => ({ key, name: key })));
    const [system] = await post('/admin/v1/points', [{ key: 'xp', name: 'XP' }]);
    await post('/admin/v1/attributes', [{ key: 'plan', name: 'Plan', type: 'user' }]);
    const achievements = await post('/admin/v1/achievements', Array.from({ length: 10 }, (_, i) => ({ key: `a${i}`, name: `A${i}`, trigger: 'api', status: 'active' })));
    const t0 = performance.now();
    process.stderr.write(`bench:analytics: writing ${USERS} users and ${EVENTS} events over ${FROM}..${TO}\n`);
    const tenant = DEFAULT_TENANT_ID;
    await db.query(
      `INSERT INTO users (tenant_id, id, created, updated, attributes)
       SELECT $1, 'u' || g, timestamptz '${FROM}' + (g % 365) * interval '1 day', now(), jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3])
       FROM generate_series(1, $2) g`,
      [tenant, USERS],
    );
    // One user in ten in the control group (the flag as the flusher keeps it).
    await db.query(
      `INSERT INTO user_state (tenant_id, user_id, fields)
       SELECT $1, 'u' || g, CASE WHEN g % 10 = 0 THEN '{"cg": ["1", 1]}'::jsonb ELSE '{}'::jsonb END FROM generate_series(1, $2) g`,
      [tenant, USERS],
    );
    // Each month of the year in its partition, as Laurel would have made them over the year.
    for (let at = Date.parse(FROM); at <= Date.parse(TO); at += 28 * 86_400_000) await makePartitions(app.ctx.db, at, null);
    // Each event: a random user, metric and moment of the year; one points award per event, by one of three triggers.
    await db.query(
      `INSERT INTO events (id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at)
       SELECT gen_random_uuid(), $1, 'u' || (1 + (random() * ($2 - 1))::int), ($3::uuid[])[1 + (g % 3)], 1, 1, at::date, at
       FROM (SELECT g, timestamptz '${FROM}' + random() * interval '365 days' AS at FROM generate_series(1, $4) g) e`,
      [tenant, USERS, metrics.map((m) => m.id), EVENTS],
    );
    await db.query(
      `INSERT INTO points_awards (id, tenant_id, user_id, system_id, trigger_id, awarded, total, at, local_date)
       SELECT gen_random_uuid(), tenant_id, user_id, $2, ($3::uuid[])[1 + (random() * 2)::int], CASE WHEN random() < 0.1 THEN -5 ELSE 10 END, 0, occurred_at, local_date
       FROM events WHERE tenant_id = $1`,
      [tenant, system!.id, [randomUUID(), randomUUID(), randomUUID()]],
    );
    // Daily streaks: one period row per user and active day, lengths of runs up to 30.
    await db.query(
      `INSERT INTO streak_periods (tenant_id, user_id, frequency, period, length, used_freeze, used_pause)
       SELECT DISTINCT ON (user_id, local_date) tenant_id, user_id, 'd', local_date - date '1970-01-01', 1 + (random() * 29)::int, false, false
       FROM events WHERE tenant_id = $1 ORDER BY user_id, local_date`,
      [tenant],
    );
    await db.query(
      `INSERT INTO achievement_completions (tenant_id, achievement_id, user_id, achieved_at)
       SELECT $1, a, 'u' || g, timestamptz '${FROM}' + random() * interval '365 days'
       FROM unnest($2::uuid[]) a, generate_series(1, $3) g WHERE random() < 0.3`,
      [tenant, achievements.map((a) => a.id), USERS],
    );
    await db.query('VACUUM ANALYZE events, points_awards, streak_periods, achievement_completions, users, user_state');
    process.stderr.write(`bench:analytics: seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
    // What the scheduler does in the background, once per closed day: sum it.
    const t1 = performance.now();
    const defaultTenant = (await app.ctx.tenants.all()).find((x) => x.id === tenant)!;
    const rollups = new DailyRollups(app.ctx);
    await rollups.ensure(defaultTenant, FROM, TO, await rollups.openFrom(defaultTenant));
    const summed = (performance.now() - t1) / 1000;
    await db.query('VACUUM ANALYZE rollup_user_days, rollup_users, rollup_trigger_points, rollup_events');

    const range = `from=${FROM}&to=${TO}`;
    const rows: string[] = [`| GET (a whole year, ${USERS} users, ${EVENTS} events) | median ms | max ms |`, '| --- | ---: | ---: |'];
    for (const path of [
      `/admin/v1/analytics/events?${range}`,
      `/admin/v1/analytics/events?${range}&metricId=${metrics[0]!.id}`,
      `/admin/v1/analytics/points?${range}`,
      `/admin/v1/analytics/active-users?${range}`,
      `/admin/v1/analytics/streaks?${range}`,
      `/admin/v1/analytics/achievements?${range}`,
      `/admin/v1/analytics/experiment?${range}`,
      `/admin/v1/analytics/experiment?${range}&attribute=plan`,
      `/admin/v1/users/u42/events?limit=20`,
    ]) {
      await call(path); // warm
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await call(path);
        ms.push(performance.now() - s);
      }
      ms.sort((a, b) => a - b);
      const note = path.includes('metricId') ? ' (one metric)' : path.includes('attribute') ? ' (split by an attribute)' : '';
      rows.push(`| ${path.split('?')[0]}${note} | ${ms[RUNS >> 1]!.toFixed(0)} | ${ms[RUNS - 1]!.toFixed(0)} |`);
    }
    if (process.env.BENCH_EXPLAIN) {
      for (const sql of [
        `SELECT to_char(day, 'YYYY-MM-DD'), metric_id, events, total FROM rollup_events
         WHERE tenant_id = '${tenant}' AND day >= '${FROM}' AND day <= '${TO}'`,
        `SELECT DISTINCT ON (user_id) length FROM streak_periods WHERE tenant_id = '${tenant}' AND frequency = 'd'
         AND period BETWEEN date '${TO}' - date '1970-01-01' - 1 AND date '${TO}' - date '1970-01-01' ORDER BY user_id, period DESC`,
        `SELECT a.id, count(c.achieved_at) FROM achievements a LEFT JOIN achievement_completions c
         ON c.tenant_id = a.tenant_id AND c.achievement_id = a.id AND c.achieved_at < '${TO}'::date + 1 WHERE a.tenant_id = '${tenant}' GROUP BY a.id`,
      ]) {
        const { rows: plan } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
        process.stderr.write(`${plan.map((r) => r['QUERY PLAN']).join('\n')}\n\n`);
      }
    }
    const counts = await db.query(`SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM points_awards) AS awards,
      (SELECT count(*) FROM streak_periods) AS periods, (SELECT count(*) FROM achievement_completions) AS completions,
      (SELECT count(*) FROM rollup_user_days) AS user_days`);
    const c = counts.rows[0] as Record<string, string>;
    const report = [
      '# Analytics benchmark',
      '',
      `${new Date().toISOString()}. \`npm run bench:analytics\`: one tenant, ${USERS} users, a year (${FROM} to ${TO}) written straight into Postgres: ${c.events} events, ${c.awards} points awards, ${c.periods} daily streak periods, ${c.completions} completions of 10 achievements; one user in ten in the control group. Summing the 365 closed days once (what the scheduler does in the background as each day closes; ${c.user_days} rows of users' active dates): ${summed.toFixed(1)} s. Then each endpoint, asked for the whole year, ${RUNS} times after a warm-up, on the same 2-core machine as everything else:`,
      '',
      ...rows,
      '',
    ].join('\n');
    process.stdout.write(report);
    writeFileSync(process.env.BENCH_RESULTS || path.resolve(__dirname, '../../bench/ANALYTICS.md'), report);
  } finally {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
    await purgeKeys(app.ctx.redis, `bench-${id}:*`).catch(() => undefined);
    await app.close();
  }
}

main().catch((err) => {
  process.stderr.write(`bench:analytics failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
