import type { Ctx } from '../context';
import type { Tenant } from '../store/tenants';
import type { MessageChannel, MessageStatus, MessageType, RenderedMessage } from '../wire/admin';
import { activeChannels, ChannelSettingsOf, getChannel, getTemplate, MessageRow } from '../store/messages';
import { deviceTokens, messageChannels, recipientsOf } from '../domain/messages';
import { RETENTION_DEFAULTS, RetentionConfig, wantsNotice } from '../domain/retention';
import { DEVICE_TOKENS_FIELD, isUser } from '../domain/user-hash';
import { toMap } from '../domain/users';
import { writeUserFields } from '../services/user-calls';
import { retryDelay } from '../webhooks/dispatcher';
import { Poller } from '../poller';
import { messageVariables, DuePayload } from './variables';
import { renderMessage, templateOf } from './render';
import type { UnsubscribeLinks } from './unsubscribe';
import { Pacer } from './pacer';
import type { SendOutcome } from './providers/outcome';
import { sendEmail } from './providers/email';
import { sendApns } from './providers/apns';
import { sendFcm } from './providers/fcm';
import { sendExpo } from './providers/expo';

export interface SenderOptions {
  /** Messages per second per tenant, at most. */
  perSecond: number;
  maxAttempts: number;
  /** The first retry's delay; each further one doubles it. */
  retryBaseMs: number;
  /** How often to look for due messages. */
  pollMs: number;
  /** Sent, failed and suppressed messages are deleted after this long. */
  retentionMs: number;
}

/** Rows claimed per round. */
const CLAIM = 32;
/** A claimed row is left alone this long (a process that dies mid-send leaves it due again after). */
const LEASE_MS = 5 * 60_000;

type Claimed = Pick<MessageRow, 'id' | 'tenant_id' | 'user_id' | 'type' | 'channel' | 'payload' | 'attempts'>;

/** One attempt's result as recorded. */
type Result = { status: MessageStatus; response: string };

/** Send a rendered message on a channel to its recipients (one address, or the provider's device tokens). */
export function sendOn<K extends MessageChannel>(
  channel: K, settings: ChannelSettingsOf[K], recipients: string[], m: RenderedMessage, unsubscribeUrl: string | null, now: number,
): Promise<SendOutcome> {
  switch (channel) {
    case 'email': return sendEmail(settings as ChannelSettingsOf['email'], recipients[0]!, m.email, unsubscribeUrl);
    case 'apns': return sendApns(settings as ChannelSettingsOf['apns'], recipients, m.push, now);
    case 'fcm': return sendFcm(settings as ChannelSettingsOf['fcm'], recipients, m.push, now);
    default: return sendExpo(settings as ChannelSettingsOf['expo'], recipients, m.push);
  }
}

/** Whether the retention settings still send a type. */
function typeEnabled(r: RetentionConfig, type: MessageType): boolean {
  switch (type) {
    case 'achievement_completed': return r.achievementEmails.enabled;
    case 'recap': return r.recapEmails.enabled;
    case 'reactivation': return r.reactivationEmails.enabled;
    default: return r.streakReminderEmails.enabled;
  }
}

/** Take dead device tokens off the user (read fresh: the user may have changed them meanwhile). */
export async function removeTokens(ctx: Ctx, tenant: Tenant, userId: string, dead: string[]): Promise<void> {
  if (dead.length === 0) return;
  const fields = toMap(Object.entries(await ctx.redis.hgetall(ctx.keys.tenant(tenant.slot).user(userId))).flat());
  if (!isUser(fields)) return;
  const kept = deviceTokens(fields).filter((t) => !dead.includes(t));
  await writeUserFields(ctx, tenant, userId, { [DEVICE_TOKENS_FIELD]: kept.length ? JSON.stringify(kept) : '' });
}

/**
 * Sends the `messages` outbox (run by the background role). Claims due rows
 * with SKIP LOCKED, pushing their due time past a lease, then for each
 * decides again from the user as they are now (erased, opted out, channel
 * gone: suppressed), renders the template and hands it to the provider.
 * Transient failures are retried with exponential backoff (the due time is
 * in Postgres, so a pending retry survives a restart); permanent ones and
 * the last attempt are recorded as failed. Each tenant's messages are paced
 * to its sending rate. Due-ness comes from the clock; pacing and polling use
 * real timers.
 */
export class MessageSender {
  /** Told each attempt's outcome (metrics). */
  onOutcome: ((channel: MessageChannel, type: MessageType, outcome: MessageStatus) => void) | null = null;

  private readonly poller: Poller<number>;
  /** Each tenant's sending rate. */
  private readonly pacer: Pacer;

  constructor(
    private readonly ctx: Ctx,
    private readonly links: UnsubscribeLinks,
    private readonly opts: SenderOptions,
  ) {
    this.pacer = new Pacer(opts.perSecond);
    this.poller = new Poller({
      everyMs: opts.pollMs,
      round: () => this.claimAndSend(),
      prune: () => this.prune(),
      failed: (err) => this.ctx.log.warn('message sending failed', { err: err.message }),
    });
  }

  start(): void {
    this.poller.start();
  }

  async stop(): Promise<void> {
    await this.poller.stop();
  }

  /** Send everything due now and wait for it (tests call this). */
  async runOnce(): Promise<number> {
    let n = 0;
    for (;;) {
      const sent = await this.poller.round();
      n += sent;
      if (sent === 0) return n;
    }
  }

  /** One claim and its sends (one round at a time per process: the poller's). */
  private async claimAndSend(): Promise<number> {
    const now = this.ctx.clock.now();
    const { rows } = await this.ctx.db.query<Claimed>(
      `WITH due AS (
         SELECT id FROM messages WHERE status IN ('queued', 'retrying') AND next_attempt_at <= $1
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE messages m SET next_attempt_at = $3 FROM due WHERE m.id = due.id
       RETURNING m.id, m.tenant_id, m.user_id, m.type, m.channel, m.payload, m.attempts`,
      [new Date(now), CLAIM, new Date(now + LEASE_MS)],
    );
    // Tenants side by side, each one's messages in turn at its pace.
    const byTenant = new Map<string, Claimed[]>();
    for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), r]);
    await Promise.all([...byTenant.values()].map(async (list) => {
      for (const r of list) {
        await this.pacer.take(r.tenant_id);
        await this.attempt(r).catch((err) => this.ctx.log.warn('message not recorded', { err: (err as Error).message, id: r.id }));
      }
    }));
    return rows.length;
  }

  /** Delete finished messages past retention (a bounded number at a time). */
  private async prune(): Promise<void> {
    await this.ctx.db.query(
      `DELETE FROM messages WHERE id IN (
         SELECT id FROM messages WHERE status IN ('sent', 'failed', 'suppressed') AND updated < $1 LIMIT 10000)`,
      [new Date(this.ctx.clock.now() - this.opts.retentionMs)],
    );
  }

  private async attempt(r: Claimed): Promise<void> {
    const result = await this.decideAndSend(r);
    const attempts = r.attempts + (result.status === 'suppressed' ? 0 : 1);
    let status = result.status;
    if (status === 'retrying' && attempts >= this.opts.maxAttempts) status = 'failed';
    const now = this.ctx.clock.now();
    const next = status === 'retrying' ? now + retryDelay(this.opts.retryBaseMs, attempts) : now;
    await this.ctx.db.query(
      'UPDATE messages SET status = $2, attempts = $3, last_response = $4, next_attempt_at = $5, updated = $6 WHERE id = $1',
      [r.id, status, attempts, result.response.slice(0, 1000), new Date(next), new Date(now)],
    );
    this.onOutcome?.(r.channel, r.type, status);
  }

  private async decideAndSend(r: Claimed): Promise<Result> {
    const ctx = this.ctx;
    const tenant = await ctx.tenants.getById(r.tenant_id);
    if (!tenant) return { status: 'suppressed', response: 'tenant removed' };
    const fields = toMap(Object.entries(await ctx.redis.hgetall(ctx.keys.tenant(tenant.slot).user(r.user_id))).flat());
    if (!isUser(fields)) return { status: 'suppressed', response: 'user erased' };
    const cfg = await ctx.configs.get(tenant);
    const retention = cfg.retention ?? RETENTION_DEFAULTS;
    if (!typeEnabled(retention, r.type)) return { status: 'suppressed', response: `${r.type} turned off in the retention settings` };
    const active = await activeChannels(ctx.db, tenant.id);
    if (!active.has(r.channel)) return { status: 'suppressed', response: `${r.channel} channel not active` };
    if (!wantsNotice(retention, fields, r.type) || !messageChannels(retention, fields, r.type, active).includes(r.channel)) {
      return { status: 'suppressed', response: 'the user no longer takes this message on this channel' };
    }
    const to = recipientsOf(r.channel, fields, active);
    const settings = await getChannel(ctx.db, ctx.secrets, tenant.id, r.channel);
    if (!settings || to.length === 0) return { status: 'suppressed', response: 'no recipient' };
    let rendered: RenderedMessage;
    let vars: Record<string, unknown>;
    try {
      vars = await messageVariables(ctx, this.links, tenant, cfg, r.user_id, fields, r.type, JSON.parse(r.payload) as DuePayload);
      rendered = await renderMessage(templateOf(await getTemplate(ctx.db, tenant.id, r.type), r.type), vars);
    } catch (err) {
      return { status: 'failed', response: `template: ${(err as Error).message}` };
    }
    const out = await sendOn(r.channel, settings, to, rendered, vars.unsubscribeUrl as string, ctx.clock.now());
    if (out.deadTokens.length) {
      await removeTokens(ctx, tenant, r.user_id, out.deadTokens).catch((err) =>
        ctx.log.warn('dead device tokens not removed', { err: (err as Error).message }));
    }
    return { status: out.status, response: out.response };
  }
}
