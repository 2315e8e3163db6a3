import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { SecretBox } from '../domain/secret-box';
import type {
  ApnsChannelSettings, EmailChannelSettings, ExpoChannelSettings, FcmChannelSettings, Message, MessageChannel, MessageStatus, MessageTemplateBody, MessageType,
} from '../wire/admin';

/**
 * Where the messages Laurel sends are configured and queued: channels (their
 * settings sealed whole under the instance's secret box), templates, and the
 * `messages` outbox. Plain functions, so any reader of a tenant's
 * configuration (the API, an export) goes through the same ones.
 */

export interface ChannelSettingsOf {
  email: EmailChannelSettings;
  apns: ApnsChannelSettings;
  fcm: FcmChannelSettings;
  expo: ExpoChannelSettings;
}

type Db = Pool | PoolClient;

/** Push channels carry no status of their own: configured means active. */
const activeOf = (kind: MessageChannel, s: ChannelSettingsOf[MessageChannel]) => kind !== 'email' || (s as EmailChannelSettings).status === 'active';

export async function getChannel<K extends MessageChannel>(db: Db, box: SecretBox, tenantId: string, kind: K): Promise<ChannelSettingsOf[K] | null> {
  const { rows } = await db.query<{ settings: string }>('SELECT settings FROM message_channels WHERE tenant_id = $1 AND channel = $2', [tenantId, kind]);
  return rows[0] ? (JSON.parse(box.open(rows[0].settings)) as ChannelSettingsOf[K]) : null;
}

export async function putChannel<K extends MessageChannel>(db: Db, box: SecretBox, tenantId: string, kind: K, settings: ChannelSettingsOf[K], now: number): Promise<void> {
  await db.query(
    `INSERT INTO message_channels (tenant_id, channel, active, settings, updated) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, channel) DO UPDATE SET active = $3, settings = $4, updated = $5`,
    [tenantId, kind, activeOf(kind, settings), box.seal(JSON.stringify(settings)), new Date(now)],
  );
}

/** Whether there was one to delete. */
export async function deleteChannel(db: Db, tenantId: string, kind: MessageChannel): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM message_channels WHERE tenant_id = $1 AND channel = $2', [tenantId, kind]);
  return (rowCount ?? 0) > 0;
}

export async function listChannels(db: Db, box: SecretBox, tenantId: string): Promise<Partial<ChannelSettingsOf>> {
  const { rows } = await db.query<{ channel: MessageChannel; settings: string }>(
    'SELECT channel, settings FROM message_channels WHERE tenant_id = $1 ORDER BY channel',
    [tenantId],
  );
  return Object.fromEntries(rows.map((r) => [r.channel, JSON.parse(box.open(r.settings))])) as Partial<ChannelSettingsOf>;
}

/** The tenant's ($1) active channels, as SQL: read here and in the flusher's one lookup (webhooks/outbox.ts deliveryTargets). */
export const ACTIVE_CHANNELS = 'SELECT channel FROM message_channels WHERE tenant_id = $1 AND active';

/** The channels that may carry messages now (one small query: the due logic asks on every batch). */
export async function activeChannels(db: Db, tenantId: string): Promise<Set<MessageChannel>> {
  const { rows } = await db.query<{ channel: MessageChannel }>(ACTIVE_CHANNELS, [tenantId]);
  return new Set(rows.map((r) => r.channel));
}

export async function getTemplate(db: Db, tenantId: string, type: MessageType): Promise<MessageTemplateBody | null> {
  const { rows } = await db.query<{ template: MessageTemplateBody }>('SELECT template FROM message_templates WHERE tenant_id = $1 AND type = $2', [tenantId, type]);
  return rows[0]?.template ?? null;
}

export async function putTemplate(db: Db, tenantId: string, type: MessageType, template: MessageTemplateBody, now: number): Promise<void> {
  await db.query(
    `INSERT INTO message_templates (tenant_id, type, template, updated) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, type) DO UPDATE SET template = $3, updated = $4`,
    [tenantId, type, JSON.stringify(template), new Date(now)],
  );
}

export async function deleteTemplate(db: Db, tenantId: string, type: MessageType): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM message_templates WHERE tenant_id = $1 AND type = $2', [tenantId, type]);
  return (rowCount ?? 0) > 0;
}

/** The tenant's own templates (types without one use the shipped default). */
export async function listTemplates(db: Db, tenantId: string): Promise<Map<MessageType, MessageTemplateBody>> {
  const { rows } = await db.query<{ type: MessageType; template: MessageTemplateBody }>('SELECT type, template FROM message_templates WHERE tenant_id = $1', [tenantId]);
  return new Map(rows.map((r) => [r.type, r.template]));
}

/** A notice to send on one channel. */
export interface QueuedMessage {
  /** The due webhook's derived id: with the channel, it makes the message once only. */
  eventId: string;
  userId: string;
  type: MessageType;
  channel: MessageChannel;
  /** The due webhook's body (what the template is rendered from). */
  payload: string;
  /** When to send it (ms). */
  due: number;
}

/** Queue messages in the caller's transaction; one already queued under the same id and channel stays as it is. */
export async function enqueueMessages(c: PoolClient, tenantId: string, messages: QueuedMessage[], now: number): Promise<void> {
  if (messages.length === 0) return;
  await c.query(
    `INSERT INTO messages (id, tenant_id, event_id, user_id, type, channel, payload, next_attempt_at, created, updated)
     SELECT gen_random_uuid(), $1, x."eventId", x."userId", x.type, x.channel, x.payload, to_timestamp(x.due / 1000.0), $3, $3
     FROM jsonb_to_recordset($2::jsonb) AS x("eventId" uuid, "userId" text, type text, channel text, payload text, due bigint)
     ON CONFLICT (tenant_id, event_id, channel) DO NOTHING`,
    [tenantId, JSON.stringify(messages), new Date(now)],
  );
}

export interface MessageRow {
  id: string;
  tenant_id: string;
  user_id: string;
  type: MessageType;
  channel: MessageChannel;
  payload: string;
  status: MessageStatus;
  attempts: number;
  last_response: string | null;
  created: Date;
  updated: Date;
}

export const messageJson = (r: MessageRow): Message => ({
  id: r.id, userId: r.user_id, type: r.type, channel: r.channel, status: r.status, attempts: r.attempts, lastResponse: r.last_response,
  createdAt: r.created.toISOString(), updatedAt: r.updated.toISOString(),
});

export const MESSAGE_COLS = 'id, tenant_id, user_id, type, channel, payload, status, attempts, last_response, created, updated';

export interface MessageFilter {
  userId?: string | null;
  type?: MessageType | null;
  channel?: MessageChannel | null;
  status?: MessageStatus | null;
}

/** A page of the tenant's messages, newest first. */
export async function listMessages(db: Db, tenantId: string, f: MessageFilter, limit: number, skip: number): Promise<MessageRow[]> {
  const { rows } = await db.query<MessageRow>(
    `SELECT ${MESSAGE_COLS} FROM messages WHERE tenant_id = $1
       AND ($2::text IS NULL OR user_id = $2) AND ($3::text IS NULL OR type = $3)
       AND ($4::text IS NULL OR channel = $4) AND ($5::text IS NULL OR status = $5)
     ORDER BY created DESC, id LIMIT $6 OFFSET $7`,
    [tenantId, f.userId ?? null, f.type ?? null, f.channel ?? null, f.status ?? null, limit, skip],
  );
  return rows;
}

/** The key that signs unsubscribe links: made once, kept in Postgres, shared by every process. */
export async function unsubscribeKey(db: Pool): Promise<Buffer> {
  await db.query('INSERT INTO unsubscribe_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [randomBytes(32)]);
  const { rows } = await db.query<{ key: Buffer }>('SELECT key FROM unsubscribe_key WHERE id = 1');
  return rows[0]!.key;
}
