import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { unsubscribeKey } from '../store/messages';
import type { MessageType } from '../wire/admin';
import { NOTIFICATION_TYPES } from '../domain/retention';

export interface UnsubscribeTarget {
  tenantId: string;
  userId: string;
  type: MessageType;
}

/**
 * Unsubscribe links (`{PUBLIC_URL}/u/{token}`): the token names tenant, user
 * and type, signed with an HMAC under a key kept in Postgres, so the link
 * itself is the permission (no API key) and cannot be altered to reach
 * another user.
 */
export class UnsubscribeLinks {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly db: Pool,
    private readonly publicUrl: string,
  ) {}

  async url(t: UnsubscribeTarget): Promise<string> {
    return `${this.publicUrl}/u/${await this.token(t)}`;
  }

  async token(t: UnsubscribeTarget): Promise<string> {
    const body = Buffer.from(JSON.stringify([t.tenantId, t.userId, NOTIFICATION_TYPES.indexOf(t.type)])).toString('base64url');
    return `${body}.${await this.mac(body)}`;
  }

  /** The target of a genuine token, else null. */
  async verify(token: string): Promise<UnsubscribeTarget | null> {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined) return null;
    const want = Buffer.from(await this.mac(body));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
    try {
      const [tenantId, userId, type] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [string, string, number];
      const t = NOTIFICATION_TYPES[type];
      return typeof tenantId === 'string' && typeof userId === 'string' && t ? { tenantId, userId, type: t } : null;
    } catch {
      return null;
    }
  }

  private async mac(body: string): Promise<string> {
    this.key ??= unsubscribeKey(this.db).catch((err) => {
      this.key = null;
      throw err;
    });
    return createHmac('sha256', await this.key).update(body).digest('base64url').slice(0, 32);
  }
}
