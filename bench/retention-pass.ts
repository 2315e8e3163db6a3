import { randomBytes } from 'node:crypto';
import { createLogger } from '../src/observability/log';
import { systemClock } from '../src/clock';
import { startApp } from '../src/app';
import { purgeKeys } from '../src/redis/purge';
import { retentionPass } from '../src/scheduler/retention';
import { localDate } from '../src/domain/time';
import { seedConfig, ZONES } from './seed';
import { benchConfig, dropSchemas } from './util';

/**
 * `node dist/bench/retention-pass.js`: how long the retention scheduler takes
 * over a tenant of BENCH_USERS users (default 100,000): the first pass after
 * retention is enabled (every user is looked at once), then a pass with
 * nothing due, which is what every scheduler tick costs. Users are written
 * straight into Redis (profile, creation time, last active date today), on the
 * local Redis and Postgres under a prefix and schema of their own, removed after.
 */
const USERS = Number(process.env.BENCH_USERS ?? 100_000);

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const config = benchConfig(id);
  const app = await startApp(config, systemClock, createLogger(config.logLevel), { http: true, background: false });
  try {
    const base = `http://127.0.0.1:${app.port}`;
    await seedConfig(base, config.adminApiKey!);
    const { ctx } = app;
    const tenant = (await ctx.tenants.all())[0]!;
    const tk = ctx.keys.tenant(tenant.slot);
    const now = Date.now();
    for (let i = 0; i < USERS; i += 5000) {
      const p = ctx.redis.pipeline();
      for (let j = i; j < Math.min(USERS, i + 5000); j++) {
        const zone = ZONES[j % ZONES.length]!;
        p.hset(tk.user(`user-${j}`), 'c', now, 'u', now, 'tz', zone, 'ld', localDate(now, zone));
      }
      await p.exec();
    }
    console.log(`users                                        ${USERS}`);
    // Enabling retention puts everyone in the due set; passes (at most 50,000 users each) work through it.
    let t0 = performance.now();
    let passes = 0;
    let visited = 0;
    for (let v = -1; v !== 0; passes++) visited += v = await retentionPass(ctx, tenant);
    console.log(`first look at everyone: ${passes - 1} passes, ${visited} visits, ${(performance.now() - t0).toFixed(0)} ms (${(((performance.now() - t0) * 1000) / visited).toFixed(0)} µs a user)`);
    const runs = 50;
    t0 = performance.now();
    for (let i = 0; i < runs; i++) await retentionPass(ctx, tenant);
    console.log(`retention pass with nothing due: ${((performance.now() - t0) / runs).toFixed(2)} ms (mean of ${runs})`);
    await app.scheduler.runOnce();
    t0 = performance.now();
    for (let i = 0; i < runs; i++) await app.scheduler.runOnce();
    console.log(`whole scheduler round with nothing due: ${((performance.now() - t0) / runs).toFixed(2)} ms (mean of ${runs})`);
    console.log(`due set size                                 ${await ctx.redis.zcard(tk.retentionDue)}`);
  } finally {
    await purgeKeys(app.ctx.redis, `${config.keyPrefix}*`);
    await app.close();
    await dropSchemas(config.databaseUrl, config.databaseSchema);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
