import type { Ctx } from '../context';
import type { LiveConfig } from '../config';
import type { Tenant } from '../store/tenants';
import { decodeChange } from '../engine/change-record';
import type { LiveScope } from './tokens';
import type { LiveSubscribe } from '../wire/live';
import { StreamFeed } from './feed';
import { userChanges } from './messages';
import { BoardViewSpec, readBoardView, watchable } from './board-view';
import { liveDropped, liveSlowClosed } from '../observability/metrics';

/** Close codes a client should know (documented in docs/live-updates.md). */
export const CLOSE_RESTART = 1012;
export const CLOSE_SLOW = 4008;

/** The socket side of a connection (a WebSocket in production; anything in tests of the hub alone). */
export interface Socket {
  buffered(): number;
  write(text: string): void;
  close(code: number, reason: string): void;
}

export interface Conn {
  scope: LiveScope;
  tenant: Tenant;
  socket: Socket | null;
  /** By subscription name (`user:u1`, `leaderboard:weekly`); made on the first subscription (idle connections stay small). */
  subs: Map<string, Sub> | null;
  /** Messages dropped (or views held back) in a row because the client was not reading. */
  dropped: number;
  /** Views held back until the client catches up (sent, fresh, on drain). */
  deferred: Set<BoardSub> | null;
  closed: boolean;
}

interface Sub {
  conn: Conn;
  name: string;
  seq: number;
}

interface BoardSub extends Sub {
  slot: number;
  spec: BoardViewSpec;
  /** The last view sent (its JSON), so an unchanged view is not sent again. */
  last: string;
  lastRead: number;
  timer: NodeJS.Timeout | null;
  reading: boolean;
  /** Changed again while a read was under way or waiting. */
  dirty: boolean;
  removed: boolean;
}

/** One tenant's subscriptions in this process, and the feed that serves them. */
interface TenantLive {
  tenant: Tenant;
  users: Map<string, Set<Sub>>;
  boards: Map<number, Set<BoardSub>>;
  count: number;
  feed: StreamFeed;
  /** Batches are handled in order. */
  queue: Promise<void>;
}

export interface LiveStats {
  connections: number;
  subscriptions: number;
  /** Tenants whose change stream this process follows. */
  feeds: number;
  /** Messages dropped for slow clients, and slow clients closed, since start. */
  dropped: number;
  slowClosed: number;
}

/**
 * This process's live connections and subscriptions. Each tenant with a
 * subscriber here has a feed on its change stream; a record is decoded only
 * for the users and boards someone watches. Leaderboard views are re-read
 * when a record moves their board, at most `boardRate` times a second per
 * subscription, and sent only when they changed.
 */
export class LiveHub {
  private readonly tenants = new Map<number, TenantLive>();
  private readonly conns = new Set<Conn>();
  private readonly perKey = new Map<string, number>();
  private readonly boardIntervalMs: number;
  private droppedTotal = 0;
  private slowClosed = 0;
  closing = false;

  constructor(
    private readonly ctx: Ctx,
    private readonly cfg: LiveConfig,
  ) {
    this.boardIntervalMs = 1000 / cfg.boardRate;
  }

  stats(): LiveStats {
    let subscriptions = 0;
    for (const t of this.tenants.values()) subscriptions += t.count;
    return { connections: this.conns.size, subscriptions, feeds: this.tenants.size, dropped: this.droppedTotal, slowClosed: this.slowClosed };
  }

  /** A new connection, or why not (per-key limit). */
  admit(scope: LiveScope, tenant: Tenant): Conn | string {
    const n = this.perKey.get(scope.keyName) ?? 0;
    if (n >= this.cfg.maxConnectionsPerKey) return `This API key has ${n} live connections open, the most allowed (LIVE_MAX_CONNECTIONS_PER_KEY)`;
    this.perKey.set(scope.keyName, n + 1);
    const conn: Conn = { scope, tenant, socket: null, subs: null, dropped: 0, deferred: null, closed: false };
    this.conns.add(conn);
    return conn;
  }

  /** The connection is gone (closed by either side, or never opened). */
  release(conn: Conn): void {
    if (conn.closed) return;
    conn.closed = true;
    conn.socket = null;
    this.conns.delete(conn);
    const n = (this.perKey.get(conn.scope.keyName) ?? 1) - 1;
    if (n > 0) this.perKey.set(conn.scope.keyName, n);
    else this.perKey.delete(conn.scope.keyName);
    for (const sub of conn.subs?.values() ?? []) this.remove(sub);
    conn.subs = null;
    conn.deferred = null;
  }

  /** A subscribe message (already validated): the answer to send, acknowledgement or refusal. */
  async subscribe(conn: Conn, msg: LiveSubscribe): Promise<Record<string, unknown>> {
    const name = msg.subscribe;
    const refuse = (error: string) => ({ error, subscribe: name });
    const colon = name.indexOf(':');
    const kind = name.slice(0, colon);
    const id = name.slice(colon + 1);
    if (colon < 0 || !id || id.length > 255 || (kind !== 'user' && kind !== 'leaderboard')) {
      return refuse('Subscribe to "user:<id>" or "leaderboard:<key>"');
    }
    const own = conn.scope.userId;
    const replacing = conn.subs?.get(name);
    if (!replacing && (conn.subs?.size ?? 0) >= this.cfg.maxSubscriptions) {
      return refuse(`At most ${this.cfg.maxSubscriptions} subscriptions per connection (LIVE_MAX_SUBSCRIPTIONS)`);
    }
    let board: { slot: number; spec: BoardViewSpec } | null = null;
    if (kind === 'user') {
      if (own !== null && id !== own) return refuse(`This key may subscribe only to its own user (user:${own})`);
    } else {
      if (msg.around && own !== null && msg.around.userId !== own) return refuse(`This key may look around its own user only (${own})`);
      const cfg = await this.ctx.configs.get(conn.tenant);
      const b = watchable(cfg, id);
      if (typeof b === 'string') return refuse(b);
      board = { slot: b.slot, spec: { key: id, top: msg.top ?? 10, around: msg.around ?? null } };
    }
    if (conn.closed) return { error: 'closed' };
    if (replacing) this.remove(replacing);
    const t = this.tenantLive(conn.tenant);
    let sub: Sub;
    if (board) {
      const bs: BoardSub = { conn, name, seq: 0, slot: board.slot, spec: board.spec, last: '', lastRead: 0, timer: null, reading: false, dirty: false, removed: false };
      let set = t.boards.get(board.slot);
      if (!set) t.boards.set(board.slot, (set = new Set()));
      set.add(bs);
      sub = bs;
    } else {
      sub = { conn, name, seq: 0 };
      let set = t.users.get(id);
      if (!set) t.users.set(id, (set = new Set()));
      set.add(sub);
    }
    t.count++;
    (conn.subs ??= new Map()).set(name, sub);
    // Acknowledged once the feed reads the stream: every change after the acknowledgement arrives.
    await t.feed.ready;
    return { subscribed: name, seq: 0 };
  }

  /** A tenant's configuration changed: every board view of it is read again (sent if it changed, or `leaderboard.unavailable` if the board went away). */
  configChanged(slot: number): void {
    const t = this.tenants.get(slot);
    if (t) for (const set of t.boards.values()) for (const bs of set) this.boardChanged(t, bs);
  }

  /** Once the acknowledgement is sent: a board's current view follows it at once. */
  acknowledged(conn: Conn, name: string): void {
    const sub = conn.subs?.get(name);
    const t = this.tenants.get(conn.tenant.slot);
    if (sub && t && 'spec' in sub) this.boardChanged(t, sub as BoardSub);
  }

  unsubscribe(conn: Conn, name: string): Record<string, unknown> {
    const sub = conn.subs?.get(name);
    if (!sub) return { error: `Not subscribed to ${name}`, unsubscribe: name };
    conn.subs!.delete(name);
    this.remove(sub);
    return { unsubscribed: name };
  }

  /** Tell every client to reconnect (SIGTERM), and stop following the streams. */
  async close(): Promise<void> {
    this.closing = true;
    for (const conn of [...this.conns]) {
      const s = conn.socket;
      this.release(conn);
      s?.close(CLOSE_RESTART, 'Server restarting: reconnect');
    }
    await Promise.all([...this.tenants.values()].map((t) => t.feed.stop()));
    this.tenants.clear();
  }

  private remove(sub: Sub): void {
    const slot = sub.conn.tenant.slot;
    const t = this.tenants.get(slot);
    if (!t) return;
    if ('spec' in sub) {
      const bs = sub as BoardSub;
      bs.removed = true;
      if (bs.timer) clearTimeout(bs.timer);
      const set = t.boards.get(bs.slot);
      if (set?.delete(bs) && set.size === 0) t.boards.delete(bs.slot);
    } else {
      const uid = sub.name.slice('user:'.length);
      const set = t.users.get(uid);
      if (set?.delete(sub) && set.size === 0) t.users.delete(uid);
    }
    if (--t.count === 0) {
      // Nobody here watches the tenant any more: stop reading its stream.
      this.tenants.delete(slot);
      void t.feed.stop();
    }
  }

  private tenantLive(tenant: Tenant): TenantLive {
    let t = this.tenants.get(tenant.slot);
    if (t) return t;
    const stream = this.ctx.keys.tenant(tenant.slot).stream;
    const live: TenantLive = {
      tenant, users: new Map(), boards: new Map(), count: 0, queue: Promise.resolve(),
      feed: new StreamFeed(this.ctx.config, stream, this.ctx.log, (records) => this.enqueue(live, records), () => this.gap(live)),
    };
    this.tenants.set(tenant.slot, (t = live));
    return t;
  }

  private enqueue(t: TenantLive, records: string[][]): void {
    t.queue = t.queue.then(() => this.handle(t, records)).catch((err) => {
      this.ctx.log.error('live updates of a batch skipped', { err: err instanceof Error ? err.stack : String(err) });
      this.gap(t);
    });
  }

  private async handle(t: TenantLive, raw: string[][]): Promise<void> {
    if (this.tenants.get(t.tenant.slot) !== t) return;
    const cfg = await this.ctx.configs.get(t.tenant);
    for (const flat of raw) {
      const r = decodeChange(flat);
      if (r.kind === 'er') continue;
      if (t.users.size) {
        const subs = t.users.get(r.userId);
        if (subs) {
          const changes = userChanges(cfg, r);
          for (const sub of subs) {
            for (const c of changes) {
              // A dropped update still spends its number: the client sees the gap.
              const seq = ++sub.seq;
              if (this.writable(sub.conn)) sub.conn.socket!.write(JSON.stringify({ subscription: sub.name, seq, type: c.type, ...c.body }));
            }
          }
        }
      }
      if (t.boards.size) {
        for (const c of r.boards) for (const bs of t.boards.get(c.k) ?? []) this.boardChanged(t, bs);
      }
    }
  }

  /** Records may have been missed: every subscription skips a number, so clients resync; views are re-read. */
  private gap(t: TenantLive): void {
    for (const set of t.users.values()) for (const sub of set) sub.seq++;
    for (const set of t.boards.values()) for (const bs of set) this.boardChanged(t, bs);
  }

  /** The client read some of what was waiting: views held back go out (fresh) once it is under the limit. */
  drained(conn: Conn): void {
    const s = conn.socket;
    if (!conn.deferred || !s || s.buffered() > this.cfg.maxBufferBytes) return;
    const held = conn.deferred;
    conn.deferred = null;
    for (const bs of held) {
      const t = this.tenants.get(conn.tenant.slot);
      if (t) this.boardChanged(t, bs);
    }
  }

  /** A board moved: read the view now, or when the subscription's rate allows (or once a slow client catches up). */
  private boardChanged(t: TenantLive, bs: BoardSub): void {
    if (bs.removed) return;
    if (!this.writable(bs.conn)) return this.defer(bs);
    if (bs.timer || bs.reading) {
      bs.dirty = true;
      return;
    }
    const wait = bs.lastRead + this.boardIntervalMs - performance.now();
    if (wait <= 0) void this.sendView(t, bs);
    else bs.timer = setTimeout(() => void this.sendView(t, bs), wait);
  }

  private async sendView(t: TenantLive, bs: BoardSub): Promise<void> {
    bs.timer = null;
    bs.dirty = false;
    bs.reading = true;
    bs.lastRead = performance.now();
    try {
      const cfg = await this.ctx.configs.get(t.tenant);
      const b = watchable(cfg, bs.spec.key);
      const view = typeof b === 'string' ? null : await this.sharedRead(t.tenant, cfg, b, bs.spec);
      // The board went away (deleted, deactivated, broken down): say so once.
      const json = view ? JSON.stringify(view) : JSON.stringify({ error: typeof b === 'string' ? b : 'gone' });
      if (!bs.removed && json !== bs.last) {
        if (!this.writable(bs.conn)) {
          this.defer(bs);
        } else {
          bs.last = json;
          // A view is a snapshot: one held back is not a gap (the next supersedes it), so numbers are spent on sending only.
          const msg = view ? { subscription: bs.name, seq: ++bs.seq, type: 'leaderboard', ...view } : { subscription: bs.name, seq: ++bs.seq, type: 'leaderboard.unavailable', error: b };
          bs.conn.socket!.write(JSON.stringify(msg));
        }
      }
    } catch (err) {
      // Redis away: try again at the next change (or the next allowed moment).
      bs.dirty = true;
      this.ctx.log.debug('live leaderboard read failed', { err: (err as Error).message });
    } finally {
      bs.reading = false;
      if (bs.dirty && !bs.removed) this.boardChanged(t, bs);
    }
  }

  /** Subscriptions asking for the same view at the same moment share one read. */
  private readonly reads = new Map<string, Promise<Awaited<ReturnType<typeof readBoardView>>>>();
  private sharedRead(tenant: Tenant, cfg: Parameters<typeof readBoardView>[2], b: Parameters<typeof readBoardView>[3], spec: BoardViewSpec) {
    const key = `${tenant.slot}\0${cfg.ver}\0${JSON.stringify(spec)}`;
    let p = this.reads.get(key);
    if (!p) {
      p = readBoardView(this.ctx, tenant, cfg, b, spec);
      this.reads.set(key, p);
      const forget = () => this.reads.delete(key);
      p.then(forget, forget);
    }
    return p;
  }

  private defer(bs: BoardSub): void {
    if (!bs.conn.closed) (bs.conn.deferred ??= new Set()).add(bs);
  }

  /**
   * Whether to send to a connection now. Past `maxBufferBytes` of unsent data
   * it is not: user updates are dropped (their `seq` is spent, so the client
   * sees the gap) and views held back until it catches up; after
   * `maxDropped` of these in a row, the connection is closed (4008).
   */
  private writable(conn: Conn): boolean {
    const s = conn.socket;
    if (conn.closed || !s) return false;
    if (s.buffered() <= this.cfg.maxBufferBytes) {
      conn.dropped = 0;
      return true;
    }
    this.droppedTotal++;
    liveDropped.inc();
    if (++conn.dropped >= this.cfg.maxDropped) {
      this.slowClosed++;
      liveSlowClosed.inc();
      this.release(conn);
      s.close(CLOSE_SLOW, `Too slow: more than ${this.cfg.maxBufferBytes} bytes unread`);
    }
    return false;
  }
}
