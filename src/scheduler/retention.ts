import { retentionNextCall } from '../engine';
import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';
import { tx } from '../store/db';
import { scanKeys } from '../redis/client';
import { derivedId } from '../domain/ids';
import { dateFromDay, dayNumber, localDate } from '../domain/time';
import { FREQ_CODE, HISTORY_KEPT, parseState, periodIndexes, streakJson, StreakState } from '../domain/streaks';
import { inControl, NotificationType, periodEndsAt, reactivationDueAt, recapOf, reminderAt, RetentionConfig, retentionSignature, wantsNotice } from '../domain/retention';
import { historyAndPauses, KeptHistory, streakCall } from '../services/streak-calls';
import { DeliveryTargets, deliveryTargets, enqueue } from '../webhooks/outbox';
import { userPayload } from '../webhooks/payloads';
import type { WebhookEvent, WebhookEventType } from '../webhooks/events';
import { enqueueMessages, QueuedMessage } from '../store/messages';
import { messageChannels } from '../domain/messages';
import type { MessageChannel } from '../wire/admin';
import { CREATED_FIELD, isUser, streakField, FREEZES_FIELD, historyField, LAST_ACTIVE_FIELD, LAST_CHANGE_FIELD, PAUSES_FIELD, STREAK_PREF_FIELD, zoneIn } from '../domain/user-hash';

/** Users looked at per batch (one pipeline of hash reads, one transaction of outbox rows). */
const BATCH = 500;
/** Batches per pass (10,000 users): a backlog (the first look after enabling, an outage) is worked through over several ticks, leaving the scheduler's other work its turn. */
const MAX_ROUNDS = 20;

const TYPE_OF: Record<Exclude<NotificationType, 'achievement_completed'>, WebhookEventType> = {
  recap: 'emails.recap_due',
  reactivation: 'emails.reactivation_due',
  streak_reminder: 'emails.streak_reminder_due',
};

/**
 * Recap, reactivation and streak-reminder webhooks. Each user waits in the
 * tenant's retention due set (a Redis sorted set) scored by the earliest time
 * one of them may be due: the event script sets it from the due times the
 * server computed (eventDueArg), and a visit here sets the next one. So a
 * pass costs one ZRANGEBYSCORE when nothing is due, whatever the number of
 * users. A visit decides from the user's hash alone what is due now, queues
 * it with an id derived from user, type and period (the outbox keeps the
 * first: several schedulers, a rerun after a crash or an outage never send
 * one twice), then moves the user's score unless an event moved it meanwhile.
 * Returns the number of users visited.
 */
export async function retentionPass(ctx: Ctx, t: Tenant): Promise<number> {
  const tk = ctx.keys.tenant(t.slot);
  const cfg = await ctx.configs.get(t);
  const signature = retentionSignature(cfg.retention, cfg.streak);
  if ((await ctx.redis.get(tk.retentionSignature)) !== signature) {
    // Settings changed (or Redis was rebuilt): every user is due for a look; off: nobody is.
    await ctx.redis.del(tk.retentionDue);
    if (signature) await fillDueSet(ctx, t);
    await ctx.redis.set(tk.retentionSignature, signature);
  }
  if (!signature) return 0;
  const now = ctx.clock.now();
  let visited = 0;
  let targets: DeliveryTargets | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const flat = await ctx.redis.zrangebyscore(tk.retentionDue, '-inf', now, 'WITHSCORES', 'LIMIT', 0, BATCH);
    if (flat.length === 0) break;
    targets ??= await deliveryTargets(ctx.db, t.id);
    const ids: string[] = [];
    const scores: string[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      ids.push(flat[i]!);
      scores.push(flat[i + 1]!);
    }
    const hashes = await ctx.redis.pipeline(ids.map((id) => ['hgetall', tk.user(id)])).exec();
    const events: WebhookEvent[] = [];
    const messages: QueuedMessage[] = [];
    const nexts: (number | null)[] = [];
    for (let i = 0; i < ids.length; i++) {
      const fields = new Map(Object.entries((hashes?.[i]?.[1] ?? {}) as Record<string, string>));
      const v = await visit(ctx, t, cfg, cfg.retention!, targets.wanted, targets.active, ids[i]!, fields, now);
      events.push(...v.events);
      messages.push(...v.messages);
      nexts.push(v.next);
    }
    if (events.length || messages.length) {
      await tx(ctx.db, async (c) => {
        await enqueue(c, t.id, events, now);
        await enqueueMessages(c, t.id, messages, now);
      });
    }
    // Sent together: ioredis writes them without waiting for each answer.
    await Promise.all(ids.map((id, i) => retentionNextCall(ctx.engine, tk, { userId: id, score: scores[i]!, next: nexts[i]! })));
    visited += ids.length;
    if (ids.length < BATCH) break;
  }
  return visited;
}

/** Put every user of the tenant in the due set, due now (after a settings change; one SCAN of the tenant's users). */
async function fillDueSet(ctx: Ctx, t: Tenant): Promise<void> {
  const tk = ctx.keys.tenant(t.slot);
  const prefix = tk.user('');
  const now = ctx.clock.now();
  await scanKeys(ctx.redis, tk.users, async (keys) => {
    if (keys.length) await ctx.redis.zadd(tk.retentionDue, ...keys.flatMap((k) => [now, k.slice(prefix.length)]));
  });
}

interface Visit {
  events: WebhookEvent[];
  /** The same notices, for the channels that carry them to the user (docs/messages.md). */
  messages: QueuedMessage[];
  /** When to look at the user next (null: not until their next event). */
  next: number | null;
}

async function visit(
  ctx: Ctx, t: Tenant, cfg: TenantConfig, r: RetentionConfig, wanted: Set<WebhookEventType>, active: Set<MessageChannel>, id: string,
  fields: Map<string, string>, now: number,
): Promise<Visit> {
  const out: Visit = { events: [], messages: [], next: null };
  // Erased, or in the control group: nothing, ever (an event puts a user back only outside the control group).
  if (!isUser(fields) || inControl(fields)) return out;
  const zone = zoneIn(fields, cfg.defaultZone);
  const today = localDate(now, zone);
  const lastActive = fields.get(LAST_ACTIVE_FIELD);
  const later = (ms: number) => {
    if (out.next === null || ms < out.next) out.next = ms;
  };
  const emit = (type: Exclude<NotificationType, 'achievement_completed'>, period: string, dueAt: number, body: Record<string, unknown>) => {
    const wt = TYPE_OF[type];
    const channels = messageChannels(r, fields, type, active);
    if ((!wanted.has(wt) && channels.length === 0) || !wantsNotice(r, fields, type)) return;
    const eventId = derivedId('webhook', wt, id, period);
    const payload = JSON.stringify({ type: wt, timestamp: new Date(dueAt).toISOString(), user: userPayload(id, new Map(fields), now), ...body });
    if (wanted.has(wt)) out.events.push({ id: eventId, type: wt, payload, due: now });
    for (const channel of channels) out.messages.push({ eventId, userId: id, type, channel, payload, due: now });
  };

  const sk = cfg.streak;
  if (r.streakReminderEmails.enabled && sk?.enabled && ownRuleOn(fields)) {
    const f = FREQ_CODE[sk.frequency];
    const cur = periodIndexes(today, sk.weekStart)[f];
    let st: StreakState = parseState(fields.get(streakField(f)));
    let freezes = Number(fields.get(FREEZES_FIELD) ?? 0);
    // A history the hash cannot answer is read from Postgres after the user's last record is written there.
    let kept: KeptHistory = { recent: fields.get(historyField(f)) ?? '', pauses: fields.get(PAUSES_FIELD) ?? '', unflushed: fields.get(LAST_CHANGE_FIELD) ?? '' };
    if (st.len > 0 && st.lp < cur - 1) {
      // Periods missed since: a freeze or pause may still hold the streak. Settle them (as a read would).
      const s = await streakCall(ctx, t, id, 'streak_read');
      if (s.kind === 'OK') {
        const settled = JSON.parse(s.raw) as StreakState & { fz: number };
        st = settled;
        freezes = settled.fz;
        kept = s;
      }
    }
    if (st.len > 0) {
      if (st.lp >= cur) later(reminderAt(r, sk, cur + 1, zone));
      else {
        const due = reminderAt(r, sk, cur, zone);
        if (now < due) later(due);
        else if (
          now < periodEndsAt(sk, cur, zone) && wantsNotice(r, fields, 'streak_reminder') &&
          (wanted.has(TYPE_OF.streak_reminder) || messageChannels(r, fields, 'streak_reminder', active).length > 0)
        ) {
          // Trophy's StreakResponse, as GET /v1/users/{id}/streak shows it (one reminder per user and period, so the read is affordable).
          const streak = {
            ...streakJson(sk, st, cur, freezes),
            extended: st.ext > 0 ? new Date(st.ext).toISOString() : null,
            ...(await historyAndPauses(ctx, t, id, sk, st, cur, HISTORY_KEPT, today, kept)),
          };
          emit('streak_reminder', `${f}:${cur}`, due, { streak });
          // Nothing more to remind of unless the user extends it (an event reschedules then).
        }
      }
    }
  }

  if (r.recapEmails.enabled && lastActive) {
    const current = recapOf(r, today, zone);
    const previous = recapOf(r, dateFromDay(dayNumber(current.start)! - 1), zone);
    // A recap goes to users who existed when the period ended and have been active since it began.
    if (lastActive >= previous.start && Number(fields.get(CREATED_FIELD)) < previous.endsAt) {
      emit('recap', `${r.recapEmails.frequency}:${previous.start}`, previous.endsAt, { recap: { periodStart: previous.start, periodEnd: previous.end } });
    }
    if (lastActive >= current.start) later(current.endsAt);
  }

  if (r.reactivationEmails.enabled && lastActive) {
    const days = r.reactivationEmails.days;
    // The latest message whose time has come (after an outage, the earlier ones are not sent late).
    let reached = -1;
    for (let k = 0; k < days.length; k++) {
      const due = reactivationDueAt(r, lastActive, k, zone);
      if (due <= now) reached = k;
      else {
        later(due);
        break;
      }
    }
    if (reached >= 0) {
      emit('reactivation', `${lastActive}:${reached}`, reactivationDueAt(r, lastActive, reached, zone), {
        reactivation: { messageNumber: reached + 1, daysSinceLastActive: days[reached] },
      });
    }
  }
  return out;
}

/** A user whose own streak rule is off has no streak to be reminded of. */
function ownRuleOn(fields: Map<string, string>): boolean {
  const own = fields.get(STREAK_PREF_FIELD);
  return !own || (JSON.parse(own) as { on: number }).on === 1;
}
