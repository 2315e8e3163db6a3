import type { Ctx } from '../context';
import { addDays, DailyRollups } from '../store/rollups';
import { utcDate } from '../domain/time';
import { dropMonth, expiredMonths, makePartitions, monthOf } from '../store/event-partitions';
import { summarizeTimeIndexes } from '../store/time-indexes';

/** How often the partitions are checked (and at every change of month). */
const CHECK_MS = 3_600_000;

/**
 * Upkeep of the events table's time partitions (store/event-partitions.ts):
 * months made ahead, and with EVENT_RETENTION_DAYS, months wholly past the
 * window dropped, each only once every tenant's daily analytics sums of its
 * days are stored (they are closed long before), so charts still answer;
 * and the history tables' time indexes summarized (store/time-indexes.ts).
 */
export class EventRecordUpkeep {
  private checkedAt = -Infinity;

  constructor(
    private readonly ctx: Ctx,
    private readonly rollups: DailyRollups,
  ) {}

  async run(): Promise<void> {
    const now = this.ctx.clock.now();
    if (monthOf(now) === monthOf(this.checkedAt) && now >= this.checkedAt && now - this.checkedAt < CHECK_MS) return;
    const days = this.ctx.config.eventRetentionDays;
    await makePartitions(this.ctx.db, now, days);
    await summarizeTimeIndexes(this.ctx.db);
    if (days !== null) {
      for (const m of await expiredMonths(this.ctx.db, now, days)) {
        if (await this.summed(utcDate(Date.parse(m.from)), addDays(utcDate(Date.parse(m.to)), -1))) await dropMonth(this.ctx.db, m.month);
      }
    }
    this.checkedAt = now;
  }

  /** Sum every tenant's days from `a` to `b`; whether all of them are closed (and so summed). */
  private async summed(a: string, b: string): Promise<boolean> {
    for (const t of await this.ctx.tenants.all()) {
      const open = await this.rollups.openFrom(t);
      if (b >= open) return false;
      await this.rollups.ensure(t, a, b, open);
    }
    return true;
  }
}
