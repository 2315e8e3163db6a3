import type { Ctx } from '../../context';
import { invalid } from '../../errors';
import type { SummaryPoint } from '../../wire/app';
import { periodSums, sumBefore, SummarySource } from '../../store/event-sums';
import { Aggregation, dateFromDay, dayNumber, nextPeriodDay, periodStartDay } from '../../domain/time';

const MAX_RANGE_DAYS = 400;
const AGGREGATIONS: Aggregation[] = ['daily', 'weekly', 'monthly'];

/** Read `aggregation`, `startDate`/`endDate` (or `start_date`/`end_date`) from the query. */
export function summaryRange(q: URLSearchParams): { unit: Aggregation; start: number; end: number } {
  const unit = q.get('aggregation') as Aggregation | null;
  if (!unit || !AGGREGATIONS.includes(unit)) throw invalid('aggregation must be one of daily, weekly, monthly');
  const startRaw = q.get('startDate') ?? q.get('start_date');
  const endRaw = q.get('endDate') ?? q.get('end_date');
  if (!startRaw || !endRaw) throw invalid('startDate and endDate are required (YYYY-MM-DD)');
  const start = dayNumber(startRaw);
  const end = dayNumber(endRaw);
  if (start === null) throw invalid('startDate must be a date in YYYY-MM-DD format');
  if (end === null) throw invalid('endDate must be a date in YYYY-MM-DD format');
  if (end < start) throw invalid('endDate must not be before startDate');
  if (end - start >= MAX_RANGE_DAYS) throw invalid(`The date range must not exceed ${MAX_RANGE_DAYS} days`);
  return { unit, start, end };
}

export { METRIC_EVENTS, POINTS_AWARDS } from '../../store/event-sums';

/**
 * One point per period from the one holding startDate to the one holding
 * endDate: the change within the period and the total at its end. Dates are
 * the user's local dates at the time of each event. Sums are exact (numeric).
 */
export async function eventSummary(db: Ctx['db'], src: SummarySource, tenantId: string, userId: string, id: string, q: URLSearchParams): Promise<SummaryPoint[]> {
  const { unit, start, end } = summaryRange(q);
  const from = periodStartDay(start, unit);
  const to = nextPeriodDay(periodStartDay(end, unit), unit) - 1;
  const trunc = unit === 'daily' ? 'day' : unit === 'weekly' ? 'week' : 'month';
  const of = { tenantId, userId, id };
  const rows = await periodSums(db, src, of, trunc, dateFromDay(from), dateFromDay(to));
  const byDate = new Map(rows.map((r) => [r.bucket, r]));
  let total: number | null = null;
  const out: SummaryPoint[] = [];
  for (let d = from; d <= end; d = nextPeriodDay(d, unit)) {
    const date = dateFromDay(d);
    const hit = byDate.get(date);
    if (hit) total = Number(hit.total);
    else if (total === null) total = Number(await sumBefore(db, src, of, date));
    out.push({ date, total, change: hit ? Number(hit.change) : 0 });
  }
  return out;
}
