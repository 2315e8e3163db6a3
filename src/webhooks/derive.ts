import type { PoolClient } from 'pg';
import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { TenantConfig } from '../store/tenant-config';
import type { BatchHook, BatchRecords } from '../pipeline/flusher';
import { changedFields, recordFields, UserChangeRecord } from '../engine/change-record';
import { derivedId } from '../domain/ids';
import { achievementJson } from '../domain/achievements';
import { systemChanges } from '../domain/points';
import { FREQ_CODE, parseState, streakJson } from '../domain/streaks';
import { rankChangeJson, ScriptBoard, joinGroup } from '../domain/leaderboards';
import { PROFILE_FIELDS } from '../domain/users';
import type { WebhookEvent, WebhookEventType } from './events';
import { deliveryTargets, enqueue } from './outbox';
import { enqueueMessages, QueuedMessage } from '../store/messages';
import { stateValues } from '../store/user-state';
import { messageChannels } from '../domain/messages';
import type { MessageChannel } from '../wire/admin';
import { isUnavailable } from '../errors';
import { boardPayload, liveRankings, userPayload } from './payloads';
import { achievementDueAt, RETENTION_FIELDS, wantsNotice } from '../domain/retention';
import { FREEZE_ANCHOR_FIELD, FREEZES_FIELD, streakField, ATTRIBUTE_PREFIX, zoneIn } from '../domain/user-hash';

/** leaderboard.changed is a snapshot: at most one per board, run and group in each window, sent at its end. */
export const BOARD_CHANGED_WINDOW_MS = 15 * 60_000;

/**
 * As in Trophy, points.changed and leaderboard.rank_changed go out at most
 * once per user (and points system, or board run) in each 15-minute window
 * of the clock: the first change of a window is sent at once, later ones in
 * it are not. Their id names the window, so the outbox keeps the first.
 */
export const PER_USER_WINDOW_MS = 15 * 60_000;
const THROTTLED: ReadonlySet<WebhookEventType> = new Set(['points.changed', 'leaderboard.rank_changed']);


/**
 * Derives webhook events from a batch of change records, inside the
 * flusher's transaction: the outbox rows commit with the batch or not at all,
 * and ids derived from the records make a re-flushed batch add nothing.
 * Costs one query per batch when the tenant has no endpoint.
 */
export class WebhookDeriver implements BatchHook {
  /** Whether the last batch queued anything (batches never overlap: the flusher runs one at a time). */
  private queued = false;

  constructor(
    private readonly ctx: Ctx,
    /** Told after a commit that queued deliveries. */
    private readonly onQueued: () => void,
  ) {}

  committed(): void {
    if (this.queued) this.onQueued();
  }

  async begin(c: PoolClient, t: Tenant, batch: BatchRecords): Promise<((c: PoolClient) => Promise<void>) | null> {
    this.queued = false;
    const { wanted, active } = await deliveryTargets(c, t.id);
    if (wanted.size === 0 && active.size === 0) return null;
    const prepared = await this.isolated(c, () => this.prepare(c, t, batch.userIds()), null);
    if (!prepared) return null;
    return (c2) =>
      this.isolated(c2, async () => {
        const { events, messages } = await this.derive(t, prepared.cfg, wanted, active, batch.records(), prepared.state, prepared.tracked);
        await enqueue(c2, t.id, events, this.ctx.clock.now());
        await enqueueMessages(c2, t.id, messages, this.ctx.clock.now());
        this.queued = events.length > 0;
      }, undefined);
  }

  /** The users' fields as stored before this batch (replayed record by record, so each event shows the user as they were then). */
  private async prepare(c: PoolClient, t: Tenant, ids: string[]) {
    const cfg = await this.ctx.configs.get(t);
    const fields = [...PROFILE_FIELDS, FREEZES_FIELD, FREEZE_ANCHOR_FIELD, ...RETENTION_FIELDS];
    if (cfg.streak?.enabled) fields.push(streakField(FREQ_CODE[cfg.streak.frequency]));
    const keep = new Set(fields);
    const tracked = (f: string) => keep.has(f) || f.startsWith(ATTRIBUTE_PREFIX);
    const { rows } = await c.query<{ user_id: string; state: string; recent: string | null }>(
      'SELECT user_id, state, recent FROM user_state WHERE tenant_id = $1 AND user_id = ANY($2)',
      [t.id, ids],
    );
    const state = new Map<string, Map<string, string>>(ids.map((id) => [id, new Map()]));
    for (const r of rows) {
      const mine = state.get(r.user_id)!;
      for (const [f, value] of stateValues(r.state, r.recent)) if (tracked(f)) mine.set(f, value);
    }
    return { cfg, state, tracked };
  }

  /**
   * Webhooks never stop the flusher: a failure that is not an outage (a bug,
   * unexpected data) skips this batch's events, loudly, and the batch is
   * written; an outage fails the whole batch, which is then retried.
   */
  private async isolated<T>(c: PoolClient, fn: () => Promise<T>, fallback: T): Promise<T> {
    await c.query('SAVEPOINT webhooks');
    try {
      const out = await fn();
      await c.query('RELEASE SAVEPOINT webhooks');
      return out;
    } catch (err) {
      if (isUnavailable(err)) throw err;
      await c.query('ROLLBACK TO SAVEPOINT webhooks');
      this.ctx.log.error('webhook events of a batch skipped', { err: err instanceof Error ? err.stack : String(err) });
      return fallback;
    }
  }

  private async derive(
    t: Tenant,
    cfg: TenantConfig,
    wanted: Set<WebhookEventType>,
    active: Set<MessageChannel>,
    records: Iterable<UserChangeRecord>,
    state: Map<string, Map<string, string>>,
    tracked: (field: string) => boolean,
  ): Promise<{ events: WebhookEvent[]; messages: QueuedMessage[] }> {
    const now = this.ctx.clock.now();
    const out: WebhookEvent[] = [];
    const messages: QueuedMessage[] = [];
    const boards = new Map<string, { board: ScriptBoard; at: number }>();
    for (const r of records) {
      const { userId: uid, at, opId: op, date } = r;
      // Fields before and after this record.
      const fields = state.get(uid)!;
      const before = new Map(fields);
      const changed = changedFields(r.userFields);
      for (const [f, v] of changed) {
        if (!tracked(f)) continue;
        if (v === null) fields.delete(f);
        else fields.set(f, v);
      }
      const recordKey = derivedId('change', JSON.stringify(recordFields(r.raw)));
      let user: unknown;
      const emit = (type: WebhookEventType, subject: string, body: Record<string, unknown>, withUser = true) => {
        if (!wanted.has(type)) return;
        if (withUser) user ??= userPayload(uid, new Map(fields), at);
        const payload = withUser ? { type, user, ...body } : { type, ...body };
        const id = THROTTLED.has(type)
          ? derivedId('webhook', type, subject, uid, String(Math.floor(at / PER_USER_WINDOW_MS)))
          : derivedId('webhook', recordKey, type, subject);
        out.push({ id, type, payload: JSON.stringify(payload), due: now });
      };

      // Achievements completed by a review of users who already qualified are backdated: not reported, as in Trophy.
      if (r.origin !== 'review') {
        for (const d of r.completions) {
          const a = cfg.achievementsById.get(d.i);
          if (a) emit('achievement.completed', a.id, { achievement: achievementJson(a, (id) => cfg.metricsById.get(id)?.name, at) });
        }
        // The app's email pipeline is told when the congratulation is due (Trophy's hours); once per user and achievement.
        const retention = cfg.retention;
        const channels = retention ? messageChannels(retention, fields, 'achievement_completed', active) : [];
        const hooked = wanted.has('emails.achievement_due');
        if (retention?.achievementEmails.enabled && (hooked || channels.length) && wantsNotice(retention, fields, 'achievement_completed')) {
          for (const d of r.completions) {
            const a = cfg.achievementsById.get(d.i);
            if (!a) continue;
            const due = achievementDueAt(at, zoneIn(fields, cfg.defaultZone));
            user ??= userPayload(uid, new Map(fields), at);
            const id = derivedId('webhook', 'emails.achievement_due', uid, a.id);
            const payload = JSON.stringify({
              type: 'emails.achievement_due', timestamp: new Date(due).toISOString(), user,
              achievement: achievementJson(a, (id) => cfg.metricsById.get(id)?.name, at),
            });
            if (hooked) out.push({ id, type: 'emails.achievement_due', payload, due: Math.max(due, now) });
            for (const channel of channels) {
              messages.push({ eventId: id, userId: uid, type: 'achievement_completed', channel, payload, due: Math.max(due, now) });
            }
          }
        }
      }

      if (r.points && op && date) {
        for (const c of systemChanges(cfg, r.points, op, at, date)) {
          emit('points.changed', c.system.id, { points: c.points });
          if (c.level) emit('points.level_changed', c.system.id, c.level);
        }
      }

      const sk = cfg.streak;
      if (sk?.enabled) {
        const code = FREQ_CODE[sk.frequency];
        const periods = r.periods.filter((p) => p.f === code);
        const st = parseState(fields.get(streakField(code)));
        const freezes = Number(fields.get(FREEZES_FIELD) ?? 0);
        // Only an event extends a streak (a restore writes a period too, but extends nothing).
        const extension = r.kind === 'ev' ? periods.find((p) => p.l > 0 && !p.fr && !p.pa) : undefined;
        if (extension) {
          emit(extension.l === 1 ? 'streak.started' : 'streak.extended', String(extension.p), { streak: streakJson(sk, st, extension.p, freezes) });
        }
        if (periods.some((p) => p.l === 0)) emit('streak.lost', 'lost', { length: st.lost });
        const consumed = periods.filter((p) => p.fr).length;
        if (consumed > 0) emit('streak.freeze_consumed', 'consumed', { consumed, freezes });
        if (changed.has(FREEZES_FIELD)) {
          // Freezes held before, or the initial ones on a first streak day (those are not earned).
          const base = before.has(FREEZE_ANCHOR_FIELD) ? Number(before.get(FREEZES_FIELD) ?? 0) : Math.min(sk.initialFreezes, sk.maxFreezes);
          const earned = freezes - base + consumed;
          if (earned > 0) emit('streak.freeze_earned', 'earned', { earned, freezes });
        }
      }

      for (const c of r.boards) {
        const b = cfg.boardsBySlot.get(c.k);
        if (!b) continue;
        const group = Array.isArray(c.g) ? c.g : [];
        boards.set(`${b.slot}\0${c.r}\0${joinGroup(group)}\0${Math.floor(at / BOARD_CHANGED_WINDOW_MS)}`, { board: c, at });
        if (c.rk === c.pr) continue;
        emit('leaderboard.rank_changed', `${b.id}:${c.r}`, { leaderboard: rankChangeJson(cfg, b, c) });
      }
    }

    if (wanted.has('leaderboard.changed')) {
      const tk = this.ctx.keys.tenant(t.slot);
      for (const { board: c, at } of boards.values()) {
        const b = cfg.boardsBySlot.get(c.k)!;
        const group = Array.isArray(c.g) ? c.g : [];
        const window = Math.floor(at / BOARD_CHANGED_WINDOW_MS);
        const rankings = await liveRankings(this.ctx.redis, tk, b, c.r, group);
        out.push({
          id: derivedId('webhook', 'leaderboard.changed', b.id, String(c.r), joinGroup(group), String(window)),
          type: 'leaderboard.changed',
          payload: JSON.stringify({ type: 'leaderboard.changed', leaderboard: boardPayload(cfg, b, c.r, b.status, rankings, group) }),
          due: (window + 1) * BOARD_CHANGED_WINDOW_MS,
          coalesce: true,
        });
      }
    }
    return { events: out, messages };
  }
}
