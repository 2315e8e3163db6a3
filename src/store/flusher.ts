import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/client';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../log';
import { FLUSH_GROUP, Keys } from '../redis/keys';
import { tx } from './db';
import { awardId, ScriptPoints } from '../domain/points';
import { derivedId } from '../domain/ids';
import { erasureHash } from './privacy';
import type { ScriptBoard } from '../domain/leaderboards';
import type { Tenant, Tenants } from './tenants';
import { DeadLetters, isPermanent, UnreadableRecord } from './dead-letters';
import { systemClock } from '../clock';
import { changeOwner, decodeChange, PeriodRecord, UserChangeRecord } from '../engine/change-record';

type StreamEntry = [id: string, fields: string[]];

interface EventRow {
  id: string;
  u: string;
  m: string;
  v: number;
  t: string;
  d: string;
  at: number;
  ik: string | null;
  a: Record<string, string> | null;
}

interface AwardRow {
  id: string;
  u: string;
  s: string;
  t: string;
  tv: string | null;
  e: string;
  a: number;
  tot: number;
  at: number;
  d: string;
  bo: string[];
}

type PeriodRow = PeriodRecord & { u: string };

interface BoardEventRow {
  id: string;
  b: string;
  r: number;
  u: string;
  at: number;
  d: string;
  pr: number | null;
  rk: number | null;
  pv: number | null;
  v: number | null;
}

interface CompletionRow {
  a: string;
  u: string;
  at: number;
  e: string;
}

interface UserRow {
  id: string;
  /** Profile fields that changed, by their Redis names (see domain/users.ts). */
  p: Record<string, string>;
  a: Record<string, string>;
  created: number | null;
  updated: number;
}

const BATCH = 500;
/** Serialization failure and deadlock: a retry goes through. */
const RETRYABLE = new Set(['40001', '40P01']);


/**
 * Derives more rows from a batch in the batch's own transaction (webhook
 * deliveries). `begin` runs before anything of the batch is written; the
 * step it returns (if any) runs after everything else; `committed` after the
 * commit of a batch that had such a step.
 */
export interface BatchHook {
  begin(c: PoolClient, t: Tenant, records: UserChangeRecord[]): Promise<((c: PoolClient) => Promise<void>) | null>;
  committed(): void;
}

/**
 * Moves change records from each tenant's stream into Postgres: at least once
 * (entries are acknowledged and deleted only after the commit), idempotently
 * (events are keyed by id; a profile change older than the stored row is
 * ignored). Entries left pending by a crashed process are claimed after a while.
 */
/**
 * A map's values in the order of its keys. Two processes flushing one tenant
 * then lock shared rows (users, fields, board entries) in the same order,
 * and cannot deadlock on each other.
 */
function inKeyOrder<V>(m: Map<string, V>): V[] {
  return [...m.keys()].sort().map((k) => m.get(k)!);
}

export class Flusher {
  /** Its name in the streams' consumer group: the process id tells which process holds unacknowledged entries. */
  private readonly consumer = `flusher-${process.pid}-${randomUUID().slice(0, 8)}`;
  private tenants: Tenant[] = [];
  private tenantsAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly pending = new Set<number>();
  /** Cycles never overlap: an entry read by one must be committed before another looks. */
  private queue: Promise<unknown> = Promise.resolve();

  private lastLagLog = 0;
  /** A refresh of the tenant list started by lag() (see knownTenants). */
  private listing: Promise<void> | null = null;

  constructor(
    private readonly db: Pool,
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly directory: Tenants,
    private readonly log: Logger,
    private readonly intervalMs = 50,
    /** How long another consumer's unacknowledged entries wait before we take them over. */
    private readonly claimIdleMs = 30_000,
    private readonly hook: BatchHook | null = null,
    private readonly deadLetters: DeadLetters = new DeadLetters(db, systemClock, log),
  ) {}

  /** Entries not yet in Postgres, and the age of the oldest (seconds), over every tenant. */
  async lag(): Promise<{ entries: number; seconds: number }> {
    let entries = 0;
    let oldest = Infinity;
    for (const t of await this.knownTenants()) {
      const stream = this.keys.tenant(t.slot).stream;
      const [len, first] = await Promise.all([this.redis.xlen(stream), this.redis.xrange(stream, '-', '+', 'COUNT', 1)]);
      entries += len;
      const id = first[0]?.[0];
      if (id) oldest = Math.min(oldest, Number(id.split('-')[0]));
    }
    return { entries, seconds: oldest === Infinity ? 0 : Math.max(0, (Date.now() - oldest) / 1000) };
  }

  /**
   * The tenants to read the lag of, without waiting on Postgres once they are
   * known (the lag is wanted most while Postgres is away). A running flusher
   * keeps the list fresh itself; one that does not run (an HTTP-only
   * process, which reads the lag for /readyz and /metrics) refreshes it here,
   * in the background, at most every 2 seconds.
   */
  private async knownTenants(): Promise<Tenant[]> {
    if (!this.tenants.length) {
      this.tenants = await this.directory.all();
      this.tenantsAt = Date.now();
    } else if (Date.now() - this.tenantsAt >= 2000 && !this.listing) {
      this.listing = this.directory
        .all()
        .then((all) => {
          this.tenants = all;
          this.tenantsAt = Date.now();
        })
        .catch(() => undefined) // Postgres away: keep the last list
        .finally(() => (this.listing = null));
    }
    return this.tenants;
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.exclusive(() => this.cycle())
        .then((n) => {
          if (!this.stopped) this.timer = setTimeout(tick, n >= BATCH ? 0 : this.intervalMs);
        })
        .catch((err) => {
          this.log.warn('flush cycle failed', { err: (err as Error).message });
          if (!this.stopped) this.timer = setTimeout(tick, 1000);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Flush until every tenant's stream is empty (tests, shutdown). */
  async drain(): Promise<void> {
    this.tenantsAt = 0;
    while ((await this.exclusive(() => this.cycle())) > 0);
  }

  /**
   * Write a user's records up to and including stream id `upTo` now, outside
   * the consumer group (read your writes: a read from Postgres must not wait
   * for the flusher's lag). Only that user's records are written, so the cost
   * is a scan of the unflushed prefix of the stream, not its write. Without
   * `userId`, every record up to `upTo` is written (reads over many users).
   * The consumers may hold some of the same records: every write is
   * idempotent and versioned (a user's records are written in stream order
   * here too), so writing one twice changes nothing, and acknowledging it
   * twice is harmless.
   */
  async flushThrough(t: Tenant, upTo: string, userId?: string): Promise<void> {
    const stream = this.keys.tenant(t.slot).stream;
    for (let from = '-'; ;) {
      const page = (await this.redis.xrange(stream, from, upTo, 'COUNT', BATCH)) as StreamEntry[];
      const mine = userId === undefined ? page : page.filter((e) => readableOwner(e[1]) === userId);
      if (mine.length) {
        await this.retryingConflicts(() => this.writeOrSetAside(t, mine));
        const ids = mine.map((e) => e[0]);
        await this.redis.multi().xack(stream, FLUSH_GROUP, ...ids).xdel(stream, ...ids).exec();
      }
      if (page.length < BATCH) return;
      from = `(${page[page.length - 1]![0]}`;
    }
  }

  /** Write every record acknowledged so far for the tenant (reads over many users). */
  async flushAll(t: Tenant): Promise<void> {
    const last = await this.redis.xrevrange(this.keys.tenant(t.slot).stream, '+', '-', 'COUNT', 1);
    if (last[0]) await this.flushThrough(t, last[0][0]);
  }

  /** Side by side with the consumers, a deadlock is possible, and a retry resolves it. */
  private async retryingConflicts(fn: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 3 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** One pass over all tenants; returns the number of entries written. */
  private async cycle(): Promise<number> {
    await this.refreshTenants();
    let n = 0;
    // A tenant whose shard is down fails alone: the others still get their turn.
    let failed: unknown = null;
    for (const t of this.tenants) {
      try {
        n += await this.flushTenant(t);
      } catch (err) {
        failed ??= err;
      }
    }
    if (failed) throw failed;
    // A backlog is worth a line in the log, at most every 10 seconds.
    if (Date.now() - this.lastLagLog > 10_000) {
      this.lastLagLog = Date.now();
      const lag = await this.lag();
      if (lag.entries > 1000 || lag.seconds > 5) this.log.warn('flusher behind', lag);
    }
    return n;
  }

  private async refreshTenants(): Promise<void> {
    if (Date.now() - this.tenantsAt < 2000) return;
    try {
      this.tenants = await this.directory.all();
      this.tenantsAt = Date.now();
    } catch (err) {
      this.log.warn('flusher could not list tenants', { err: (err as Error).message });
    }
  }

  private async flushTenant(t: Tenant): Promise<number> {
    const stream = this.keys.tenant(t.slot).stream;
    // Our own unacknowledged entries first (a failed commit), then new ones.
    const from = this.pending.has(t.slot) ? '0' : '>';
    let entries: StreamEntry[];
    try {
      entries = await this.read(stream, from);
    } catch (err) {
      if (!String((err as Error).message).includes('NOGROUP')) throw err;
      // Only on an existing stream: a deleted tenant must not get one back.
      if (await this.redis.exists(stream)) await this.redis.xgroup('CREATE', stream, FLUSH_GROUP, '0').catch(() => undefined);
      return 0;
    }
    if (entries.length === 0) {
      this.pending.delete(t.slot);
      // Our own backlog is done: go on to new entries now, or a drain would stop short of them.
      return from === '0' ? this.flushTenant(t) : this.claimStale(t, stream);
    }
    this.pending.add(t.slot);
    await this.writeOrSetAside(t, entries);
    const ids = entries.map((e) => e[0]);
    await this.redis.multi().xack(stream, FLUSH_GROUP, ...ids).xdel(stream, ...ids).exec();
    if (from === '>') this.pending.delete(t.slot);
    return entries.length;
  }

  private async read(stream: string, from: string): Promise<StreamEntry[]> {
    const res = (await this.redis.xreadgroup('GROUP', FLUSH_GROUP, this.consumer, 'COUNT', BATCH, 'STREAMS', stream, from)) as
      | [string, StreamEntry[]][]
      | null;
    return res?.[0]?.[1] ?? [];
  }

  /** Take over entries another (dead) consumer read but never acknowledged. */
  private async claimStale(t: Tenant, stream: string): Promise<number> {
    const [, entries] = (await this.redis.xautoclaim(stream, FLUSH_GROUP, this.consumer, this.claimIdleMs, '0-0', 'COUNT', BATCH)) as [string, StreamEntry[]];
    const live = entries.filter((e) => e[1] !== null);
    if (live.length === 0) return 0;
    this.pending.add(t.slot);
    await this.writeOrSetAside(t, live);
    const ids = live.map((e) => e[0]);
    await this.redis.multi().xack(stream, FLUSH_GROUP, ...ids).xdel(stream, ...ids).exec();
    this.pending.delete(t.slot);
    return live.length;
  }

  /**
   * Write a batch; when Postgres refuses it for good (a data error, see
   * isPermanent), halve it until the refused records stand alone, write the
   * rest, and move each refused one to the dead letters. The caller then
   * acknowledges the whole batch. Halving finds one bad record among 500 in
   * about 18 transactions, where one by one would take 500. Records stay in
   * stream order, and every write is idempotent and versioned, so the halves
   * land as the whole batch would have. Any other error (an outage) throws,
   * and the batch is retried as before, dead letters included.
   */
  private async writeOrSetAside(t: Tenant, entries: StreamEntry[]): Promise<void> {
    try {
      await this.write(t, entries);
    } catch (err) {
      if (!isPermanent(err)) throw err;
      if (entries.length === 1) return this.deadLetters.add(t, entries[0]![0], entries[0]![1], err);
      const half = Math.ceil(entries.length / 2);
      await this.writeOrSetAside(t, entries.slice(0, half));
      await this.writeOrSetAside(t, entries.slice(half));
    }
  }

  /** Write one record again (a dead letter's replay), through the same code as any batch; throws what Postgres says. */
  replay(t: Tenant, streamId: string, fields: string[]): Promise<void> {
    return this.write(t, [[streamId, fields]]);
  }

  private async write(t: Tenant, entries: StreamEntry[]): Promise<void> {
    let batch = collect(entries);
    const derived = await tx(this.db, async (c) => {
      // The tables written below have no foreign key to tenants (one check
      // per row cost more than any other part of a flush): this lock is that
      // check, once. A tenant removed meanwhile has nothing left to keep.
      const live = await c.query({ name: 'flush-tenant-lock', text: 'SELECT 1 FROM tenants WHERE id = $1 FOR KEY SHARE', values: [t.id] });
      if (!live.rowCount) return null;
      // Records of a user erased after they were written are dropped (the
      // erasure locks this tenant row to delete what was flushed before). A
      // statement of its own, after the lock: one taking the lock too would
      // read the tombstones as of before an erasure it waited for.
      const kept = await keptAfterErasures(c, t.id, entries);
      if (kept) batch = collect(kept);
      const { events, awards, users, fields, boardEntries, boardEvents, periods, completions, records } = batch;
      const step = this.hook ? await this.hook.begin(c, t, records) : null;
      if (users.size) {
        const rows = inKeyOrder(users);
        await c.query(
          `INSERT INTO users (tenant_id, id, email, name, tz, subscribe_to_emails, device_tokens, attributes, created, updated)
           SELECT $1, x.id, x.p->>'e', x.p->>'n', nullif(x.p->>'tz', ''), coalesce(x.p->>'se', '1') = '1',
                  nullif(x.p->>'dt', '')::jsonb, x.a, to_timestamp(coalesce(x.created, x.updated) / 1000.0), to_timestamp(x.updated / 1000.0)
           FROM jsonb_to_recordset($2::jsonb) AS x(id text, p jsonb, a jsonb, created bigint, updated bigint)
           ON CONFLICT (tenant_id, id) DO NOTHING`,
          [t.id, JSON.stringify(rows)],
        );
        await c.query(
          `UPDATE users SET
             email = CASE WHEN x.p ? 'e' THEN x.p->>'e' ELSE users.email END,
             name = CASE WHEN x.p ? 'n' THEN x.p->>'n' ELSE users.name END,
             tz = CASE WHEN x.p ? 'tz' THEN nullif(x.p->>'tz', '') ELSE users.tz END,
             subscribe_to_emails = CASE WHEN x.p ? 'se' THEN x.p->>'se' = '1' ELSE users.subscribe_to_emails END,
             device_tokens = CASE WHEN x.p ? 'dt' THEN nullif(x.p->>'dt', '')::jsonb ELSE users.device_tokens END,
             attributes = users.attributes || x.a,
             updated = to_timestamp(x.updated / 1000.0)
           FROM jsonb_to_recordset($2::jsonb) AS x(id text, p jsonb, a jsonb, updated bigint)
           WHERE users.tenant_id = $1 AND users.id = x.id AND users.updated <= to_timestamp(x.updated / 1000.0)`,
          [t.id, JSON.stringify(rows)],
        );
      }
      if (fields.size) {
        // Field by field, the newer version wins: two flushers may commit
        // neighbouring batches in either order.
        await c.query(
          `INSERT INTO user_state AS s (tenant_id, user_id, fields)
           SELECT $1, x.u, x.f FROM jsonb_to_recordset($2::jsonb) AS x(u text, f jsonb)
           ON CONFLICT (tenant_id, user_id) DO UPDATE SET fields = s.fields || coalesce(
             (SELECT jsonb_object_agg(n.key, n.value) FROM jsonb_each(excluded.fields) AS n
              WHERE s.fields->n.key IS NULL OR s.fields->n.key->1 < n.value->1), '{}')`,
          [t.id, userStateJson(fields)],
        );
      }
      if (boardEntries.size) {
        await c.query(
          `INSERT INTO board_entries (tenant_id, leaderboard_id, run, grp, user_id, score, ver)
           SELECT $1, x.b, x.r, x.g, x.u, x.s::double precision, x.ver
           FROM jsonb_to_recordset($2::jsonb) AS x(b uuid, r integer, g text, u text, s text, ver numeric)
           ON CONFLICT (tenant_id, leaderboard_id, run, grp, user_id) DO UPDATE SET score = excluded.score, ver = excluded.ver
           WHERE board_entries.ver < excluded.ver`,
          [t.id, JSON.stringify(inKeyOrder(boardEntries))],
        );
      }
      if (boardEvents.length) {
        await c.query(
          `INSERT INTO leaderboard_events (id, tenant_id, leaderboard_id, run, user_id, at, local_date, previous_rank, rank, previous_value, value)
           SELECT x.id, $1, x.b, x.r, x.u, to_timestamp(x.at / 1000.0), x.d, x.pr, x.rk, x.pv, x.v
           FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, b uuid, r integer, u text, at bigint, d date, pr integer, rk integer, pv bigint, v bigint)
           ON CONFLICT (id) DO NOTHING`,
          [t.id, JSON.stringify(boardEvents)],
        );
      }
      if (periods.size) {
        await c.query(
          `INSERT INTO streak_periods (tenant_id, user_id, frequency, period, length, used_freeze, used_pause)
           SELECT $1, x.u, x.f, x.p, x.l, x.fr = 1, x.pa = 1
           FROM jsonb_to_recordset($2::jsonb) AS x(u text, f text, p integer, l integer, fr integer, pa integer)
           ON CONFLICT (tenant_id, user_id, frequency, period) DO UPDATE
             SET length = excluded.length, used_freeze = excluded.used_freeze, used_pause = excluded.used_pause`,
          [t.id, JSON.stringify(inKeyOrder(periods))],
        );
      }
      if (completions.length) {
        await c.query(
          `INSERT INTO achievement_completions (tenant_id, achievement_id, user_id, achieved_at, event_id)
           SELECT $1, x.a, x.u, to_timestamp(x.at / 1000.0), x.e
           FROM jsonb_to_recordset($2::jsonb) AS x(a uuid, u text, at bigint, e uuid)
           ON CONFLICT DO NOTHING`,
          [t.id, JSON.stringify(completions)],
        );
      }
      if (awards.length) {
        await c.query(
          `INSERT INTO points_awards (id, tenant_id, user_id, system_id, trigger_id, trigger_version, event_id, awarded, total, at, local_date, boosts)
           SELECT x.id, $1, x.u, x.s, x.t, x.tv, x.e, x.a, x.tot, to_timestamp(x.at / 1000.0), x.d, x.bo
           FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, u text, s uuid, t uuid, tv uuid, e uuid, a numeric, tot numeric, at bigint, d date, bo jsonb)
           ON CONFLICT (id) DO NOTHING`,
          [t.id, JSON.stringify(awards)],
        );
      }
      if (events.length) {
        await c.query(
          `INSERT INTO events (id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at, idempotency_key, attributes)
           SELECT x.id, $1, x.u, x.m, x.v, x.t, x.d, to_timestamp(x.at / 1000.0), x.ik, x.a
           FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, u text, m uuid, v numeric, t numeric, d date, at bigint, ik text, a jsonb)
           ON CONFLICT (id) DO NOTHING`,
          [t.id, JSON.stringify(events)],
        );
      }
      if (step) await step(c);
      return step;
    });
    if (derived) this.hook!.committed();
  }
}

/** A batch's rows, collected from its stream entries. */
function collect(entries: StreamEntry[]) {
  const events: EventRow[] = [];
  const awards: AwardRow[] = [];
  const users = new Map<string, UserRow>();
  // Latest value of each user field and board entry in this batch, with the entry id as its version.
  const fields = new Map<string, Map<string, [value: string | null, ver: string]>>();
  const boardEntries = new Map<string, { b: string; r: number; g: string; u: string; s: string | null; ver: string }>();
  const collectFields = (changed: Record<string, string | false>, userId: string, ver: string) => {
    let mine = fields.get(userId);
    if (!mine) fields.set(userId, (mine = new Map()));
    for (const f in changed) mine.set(f, [changed[f] === false ? null : (changed[f] as string), ver]);
  };
  const completions: CompletionRow[] = [];
  const boardEvents: BoardEventRow[] = [];
  const collectBoards = (boards: ScriptBoard[], opId: string, userId: string, at: number, date: string, ver: string) => {
    for (const c of boards) {
      const g = (Array.isArray(c.g) ? c.g : []).join('\x1f');
      const entry = (u: string, score: string | null) => boardEntries.set(`${c.i}\0${c.r}\0${g}\0${u}`, { b: c.i, r: c.r, g, u, s: score, ver });
      entry(userId, c.rk > 0 ? c.sc : null);
      for (const u of Array.isArray(c.ev) ? c.ev : []) entry(u, null);
      const none = (x: number) => (x < 0 ? null : x);
      boardEvents.push({
        id: derivedId('board', opId, c.i), b: c.i, r: c.r, u: userId, at, d: date,
        pr: none(c.pr), rk: none(c.rk), pv: c.pr > 0 ? c.pv : null, v: c.rk > 0 ? c.nv : null,
      });
    }
  };
  // Later records of the same period win (a restore rewrites one).
  const periods = new Map<string, PeriodRow>();
  const collectPeriods = (written: PeriodRecord[], userId: string) => {
    for (const r of written) periods.set(`${userId}\0${r.f}\0${r.p}`, { ...r, u: userId });
  };
  const collectCompletions = (done: { i: string }[], opId: string, userId: string, at: number) => {
    for (const d of done) completions.push({ a: d.i, u: userId, at, e: opId });
  };
  // Award ids derive from the operation and trigger, as in the responses, so a replayed batch adds no rows.
  const collectAwards = (points: ScriptPoints | null, opId: string, userId: string, at: number, date: string) => {
    if (!points) return;
    for (const sys of Object.values(points)) {
      for (const [i, a] of (Array.isArray(sys.aw) ? sys.aw : []).entries()) {
        awards.push({ id: awardId(opId, a.t, i), u: userId, s: a.si, t: a.t, tv: a.v ?? null, e: opId, a: a.a, tot: a.tot, at, d: date, bo: Array.isArray(a.bo) ? a.bo : [] });
      }
    }
  };
  const touch = (id: string, at: number, created: string, patch: string) => {
    let u = users.get(id);
    if (!u) users.set(id, (u = { id, p: {}, a: {}, created: null, updated: at }));
    if (created) u.created ??= Number(created);
    if (patch) {
      const p = JSON.parse(patch) as Record<string, string>;
      for (const k in p) {
        if (k.startsWith('a:')) u.a[k.slice(2)] = p[k]!;
        else u.p[k] = p[k]!;
      }
    }
    u.updated = Math.max(u.updated, at);
  };
  const records: UserChangeRecord[] = [];
  const collectOne = (entryId: string, flat: string[]) => {
    const r = decodeChange(flat);
    // An erasure's marker (see lua/user_erase.lua) only splits the stream.
    if (r.kind === 'er') return;
    records.push(r);
    const ver = streamVersion(entryId);
    if (r.kind === 'ev') events.push({ ...r.event, t: r.total });
    if (r.created || r.patch) touch(r.userId, r.at, r.created, r.patch);
    collectAwards(r.points, r.opId!, r.userId, r.at, r.date!);
    collectCompletions(r.completions, r.opId!, r.userId, r.at);
    collectPeriods(r.periods, r.userId);
    if (r.kind === 'ev') collectBoards(r.boards, r.opId!, r.userId, r.at, r.date!, ver);
    collectFields(r.userFields, r.userId, ver);
  };
  for (const [entryId, flat] of entries) {
    try {
      collectOne(entryId, flat);
    } catch (err) {
      // Malformed JSON or a missing field: no retry will parse it.
      throw new UnreadableRecord(`Unreadable change record ${entryId}: ${(err as Error).message}`);
    }
  }
  return { events, awards, users, fields, boardEntries, boardEvents, periods, completions, records };
}

/**
 * The entries to write when erasures newer than some of them exist: each
 * erased user's records older than their erasure left out (null: keep all).
 * One indexed query per batch, which finds nothing unless a user was erased
 * since the batch's oldest record was written.
 */
async function keptAfterErasures(c: PoolClient, tenantId: string, entries: StreamEntry[]): Promise<StreamEntry[] | null> {
  if (entries.length === 0) return null;
  let oldest = BigInt(streamVersion(entries[0]![0]));
  for (const [id] of entries) {
    const v = BigInt(streamVersion(id));
    if (v < oldest) oldest = v;
  }
  const { rows } = await c.query<{ user_hash: string; ver: string }>({
    name: 'flush-erasures',
    text: 'SELECT user_hash, ver FROM user_erasures WHERE tenant_id = $1 AND ver > $2',
    values: [tenantId, oldest.toString()],
  });
  if (rows.length === 0) return null;
  const erased = new Map(rows.map((r) => [r.user_hash, BigInt(r.ver)]));
  return entries.filter(([id, flat]) => {
    const u = changeOwner(flat);
    if (u === null) return true;
    const ver = erased.get(erasureHash(tenantId, u));
    return ver === undefined || BigInt(streamVersion(id)) > ver;
  });
}

/** ownerOf for a raw entry, null when unreadable (the consumers set those aside). */
function readableOwner(flat: string[]): string | null {
  try {
    return changeOwner(flat);
  } catch {
    return null;
  }
}

/**
 * Rows for user_state, users in key order: {u, f: {field: [value, version]}}.
 * Written by hand because a version (up to 19 digits) must stay a JSON number
 * and exact, which JSON.stringify cannot do.
 */
function userStateJson(fields: Map<string, Map<string, [string | null, string]>>): string {
  const rows: string[] = [];
  for (const u of [...fields.keys()].sort()) {
    const parts: string[] = [];
    for (const [f, [v, ver]] of fields.get(u)!) parts.push(`${JSON.stringify(f)}:[${v === null ? 'null' : JSON.stringify(v)},${ver}]`);
    rows.push(`{"u":${JSON.stringify(u)},"f":{${parts.join(',')}}}`);
  }
  return `[${rows.join(',')}]`;
}

/** A stream entry id ('ms-seq') as one orderable number. */
function streamVersion(id: string): string {
  const [ms, seq] = id.split('-');
  return (BigInt(ms!) * 1_000_000n + BigInt(seq ?? '0')).toString();
}

