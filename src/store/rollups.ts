import type { Ctx } from '../context';
import type { Tenant } from './tenants';
import { tx } from './db';
import { sumActivity } from './activity-record';
import { refreshUserSummaries } from './experiment';
import { utcDate } from '../domain/time';

const DAY_MS = 86_400_000;
/**
 * Events are stamped by the clock of the process that took them and the
 * change stream by Redis's: a day is only summed once both are this far past
 * its end, so a little skew between hosts cannot leave an event out.
 */
const SETTLE_MS = 5 * 60_000;
/** How far back the background job sums days (the analytics' longest range). */
export const ROLLUP_DAYS = 400;
/** Days summed per transaction, so one background run stays short. */
const SPAN_DAYS = 31;

export const addDays = (day: string, n: number) => utcDate(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

/**
 * Daily sums of each tenant's events, points and active users, per UTC day.
 * A day is summed once it is over and everything of it has reached Postgres
 * (the tenant's change stream holds nothing older than its end); after that
 * nothing can be added to it (events are stamped when they arrive), so the
 * sums never change. The analytics read them for closed days and sum the
 * rest (today, or a day still in the stream) from the rows themselves, so a
 * year costs about 400 small rows however many events it held.
 */
export class DailyRollups {
  /** Per tenant: the first open day when the background job last found nothing to do. */
  private readonly done = new Map<string, string>();

  constructor(private readonly ctx: Ctx) {}

  /** The first day that is not closed yet: days before it are over and fully written. */
  async openFrom(tenant: Tenant): Promise<string> {
    const first = await this.ctx.redis.xrange(this.ctx.keys.tenant(tenant.slot).stream, '-', '+', 'COUNT', 1);
    const oldest = first[0] ? Number(first[0][0].split('-')[0]) : Infinity;
    return utcDate(Math.min(this.ctx.clock.now(), oldest) - SETTLE_MS);
  }

  /** Sum the closed days of [from, to] that are not summed yet. */
  async ensure(tenant: Tenant, from: string, to: string, openFrom: string, maxSpans = Infinity): Promise<void> {
    const last = to < openFrom ? to : addDays(openFrom, -1);
    if (last < from) return;
    const { rows } = await this.ctx.db.query<{ day: string }>(
      `SELECT to_char(d, 'YYYY-MM-DD') AS day FROM generate_series($2::date, $3::date, interval '1 day') d
       WHERE NOT EXISTS (SELECT 1 FROM rollup_days r WHERE r.tenant_id = $1 AND r.day = d::date) ORDER BY d DESC`,
      [tenant.id, from, last],
    );
    // Contiguous runs of missing days, newest first, at most SPAN_DAYS each.
    const spans: [string, string][] = [];
    for (const { day } of rows) {
      const span = spans[spans.length - 1];
      if (span && addDays(day, 1) === span[0] && dayDiff(day, span[1]) < SPAN_DAYS) span[0] = day;
      else spans.push([day, day]);
    }
    for (const [a, b] of spans.slice(0, maxSpans)) await this.sum(tenant, a, b);
  }

  /** The background job: sum what closed since the last run, and the last 400 days once (a few spans a run). */
  async catchUp(tenant: Tenant): Promise<void> {
    const open = await this.openFrom(tenant);
    if (this.done.get(tenant.id) === open) return;
    await this.ensure(tenant, addDays(open, -ROLLUP_DAYS), addDays(open, -1), open, 3);
    const { rows } = await this.ctx.db.query(
      `SELECT 1 FROM generate_series($2::date, $3::date, interval '1 day') d
       WHERE NOT EXISTS (SELECT 1 FROM rollup_days r WHERE r.tenant_id = $1 AND r.day = d::date) LIMIT 1`,
      [tenant.id, addDays(open, -ROLLUP_DAYS), addDays(open, -1)],
    );
    if (!rows.length) this.done.set(tenant.id, open);
  }

  /** Sum the days from `a` to `b` (both closed) in one transaction; a concurrent sum of the same days writes the same rows. */
  private async sum(tenant: Tenant, a: string, b: string): Promise<void> {
    const start = `${a}T00:00:00Z`;
    const end = `${addDays(b, 1)}T00:00:00Z`;
    const args = [tenant.id, start, end];
    await tx(this.ctx.db, async (c) => {
      await c.query(
        `INSERT INTO rollup_events (tenant_id, day, metric_id, events, total, active_users)
         SELECT $1, (occurred_at AT TIME ZONE 'UTC')::date, metric_id, count(*), sum(value), count(DISTINCT user_id) FROM events
         WHERE tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3 GROUP BY 2, 3
         ON CONFLICT DO NOTHING`,
        args,
      );
      await c.query(
        `INSERT INTO rollup_points (tenant_id, day, system_id, issued, consumed, awards)
         SELECT $1, (at AT TIME ZONE 'UTC')::date, system_id, coalesce(sum(awarded) FILTER (WHERE awarded > 0), 0),
                coalesce(-sum(awarded) FILTER (WHERE awarded < 0), 0), count(*)
         FROM awards WHERE tenant_id = $1 AND at >= $2 AND at < $3 GROUP BY 2, 3
         ON CONFLICT DO NOTHING`,
        args,
      );
      await refreshUserSummaries(c, tenant.id, await sumActivity(c, tenant.id, start, end));
      // Every day gets its row (0 active users included): the row says the day is summed.
      await c.query(
        `INSERT INTO rollup_days (tenant_id, day, active_users)
         SELECT $1, d::date, coalesce(a.users, 0)
         FROM generate_series($2::timestamptz AT TIME ZONE 'UTC', $3::timestamptz AT TIME ZONE 'UTC' - interval '1 day', interval '1 day') d
         LEFT JOIN (SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, count(DISTINCT user_id) AS users FROM events
                    WHERE tenant_id = $1 AND occurred_at >= $2 AND occurred_at < $3 GROUP BY 1) a ON a.day = d::date
         ON CONFLICT DO NOTHING`,
        args,
      );
    });
  }
}

const dayDiff = (a: string, b: string) => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS;
