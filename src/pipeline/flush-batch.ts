import type { PoolClient } from 'pg';
import { awardId, ScriptPoints } from '../domain/points';
import type { ScriptBoard } from '../domain/leaderboards';
import { changedFields, changeOwner, decodeChange, PeriodRecord, UserChangeRecord } from '../engine/change-record';
import { erasureHash } from '../store/privacy';
import { UnreadableRecord } from './dead-letters';
import { ATTRIBUTE_PREFIX, DEVICE_TOKENS_FIELD, EMAIL_FIELD, NAME_FIELD, SUBSCRIBED_FIELD, ZONE_FIELD } from '../domain/user-hash';
import { joinGroup } from '../domain/leaderboards';
import { BatchGroups, streamVersion, versionBefore, writeUserState } from '../store/user-state';
import { LeagueEntries, writeLeagueEntries } from '../store/league-record';
import { byKey, inTurn, Steps, together } from '../store/db';
import { CopyRows, copyRows } from '../store/copy';
import { AwardKind, awardKindIds, awardKindKey } from '../store/award-kinds';
import { takeFlushMark } from '../store/flush-marks';

/*
 * The SQL side of the flusher: a batch of change records collected into rows
 * per table group (Batch), and written in one transaction (writeBatch),
 * statements in one order for every first try (and one for every retry)
 * and rows in key order, so two flushers lock rows in the same order.
 */

export type StreamEntry = [id: string, fields: string[]];

type PeriodRow = PeriodRecord & { u: string };

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
  /** The change record's stream version (the order awards were made in). */
  ver: string;
  /** Its awards (see eventAwards), or null. */
  aw: EventAward[] | null;
}

/** An award of an event: its kind's key (store/award-kinds.ts), place among the system's awards, amount and total after it. */
type EventAward = [kind: string, place: number, amount: number, total: number];

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
  ver: string;
}

interface BoardEventRow {
  /** The operation (event) it came from: written only the first time that operation is flushed. */
  e: string;
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
  /** Profile fields that changed, by their user-hash names (domain/user-hash.ts; the users upsert below reads them). */
  p: Record<string, string>;
  a: Record<string, string>;
  created: number | null;
  updated: number;
}

/**
 * A map's values in the order of its keys. Two processes flushing one tenant
 * then lock shared rows (users, fields, board entries) in the same order,
 * and cannot deadlock on each other.
 */
function inKeyOrder<V>(m: Map<string, V>): V[] {
  return [...m.keys()].sort().map((k) => m.get(k)!);
}

const periodKey = (user: string, frequency: string, period: number) => `${user}\0${frequency}\0${period}`;

const boardEntryKey = (board: string, run: number, group: string, user: string) => `${board}\0${run}\0${group}\0${user}`;

type BoardEntryRow = { b: string; r: number; g: string; u: string; s: string | null; ver: string };

/**
 * A batch's rows, collected from its stream entries: one list or map per
 * table, filled by one method per part of a change record.
 */
export class Batch {
  readonly events: EventRow[] = [];
  readonly awards: AwardRow[] = [];
  /** What the events' awards share (system, trigger, version, boosts), by key. */
  readonly awardKinds = new Map<string, AwardKind>();
  readonly users = new Map<string, UserRow>();
  /** Each user's changed fields in this batch, as groups of their user_state row (store/user-state.ts). */
  readonly fields = new Map<string, BatchGroups>();
  /** Latest score of each board entry in this batch, versioned likewise. */
  readonly boardEntries = new Map<string, BoardEntryRow>();
  readonly boardEvents: BoardEventRow[] = [];
  /** Each league participant's latest place in this batch (store/league-record.ts). */
  readonly leagueEntries = new LeagueEntries();
  /** Later records of the same period win (a restore rewrites one). */
  readonly periods = new Map<string, PeriodRow>();
  readonly completions: CompletionRow[] = [];
  /** Operations other than events whose awards this batch writes (see writeOnce). */
  readonly operations: string[] = [];

  constructor(private readonly entries: StreamEntry[]) {
    for (const [entryId, flat] of entries) {
      try {
        this.add(entryId, flat);
      } catch (err) {
        // Malformed JSON or a missing field: no retry will parse it.
        throw new UnreadableRecord(`Unreadable change record ${entryId}: ${(err as Error).message}`);
      }
    }
  }

  /**
   * The batch's records, decoded again one at a time (for the webhook
   * step). Not kept from the decoding above: a batch's decoded records,
   * held to its commit, were copied by each scavenge meanwhile (a fifth
   * of the flusher's CPU in bench:flush-alloc, docs/durability.md); a
   * tenant with webhooks decodes twice instead.
   */
  *records(): Generator<UserChangeRecord> {
    for (const [, flat] of this.entries) {
      const r = decodeChange(flat);
      if (r.kind !== 'er') yield r;
    }
  }

  /** The users with a record in this batch (each has a group, maybe empty: see addFields). */
  userIds(): string[] {
    return [...this.fields.keys()];
  }

  private add(entryId: string, flat: string[]): void {
    const r = decodeChange(flat);
    // An erasure's marker (see lua/user_erase.lua) only splits the stream.
    if (r.kind === 'er') return;
    const ver = streamVersion(entryId);
    if (r.kind === 'ev') {
      // Named field by field: a spread copies through V8's slow path (see decodeChange).
      const e = r.event;
      this.events.push({ id: e.id, u: e.u, m: e.m, v: e.v, t: r.total, d: e.d, at: e.at, ik: e.ik, a: e.a, ver, aw: eventAwards(r.points, this.awardKinds) });
    }
    if (r.created || r.patch) this.touch(r.userId, r.at, r.created, r.patch);
    if (r.kind !== 'ev' && this.addAwards(r.points, r.opId!, r.userId, r.at, r.date!, ver)) this.operations.push(r.opId!);
    for (const d of r.completions) this.completions.push({ a: d.i, u: r.userId, at: r.at, e: r.opId! });
    for (const p of r.periods) this.periods.set(periodKey(r.userId, p.f, p.p), { f: p.f, p: p.p, l: p.l, fr: p.fr, pa: p.pa, u: r.userId });
    if (r.kind === 'ev') this.addBoards(r.boards, r.opId!, r.userId, r.at, r.date!, ver);
    if (r.kind === 'ev') this.leagueEntries.add(r.leagues, r.userId, ver);
    this.addFields(r.userFields, r.userId, ver);
  }

  private addFields(uf: string, userId: string, ver: string): void {
    const g = fieldGroup(ver, uf);
    const mine = this.fields.get(userId);
    if (!mine) this.fields.set(userId, { text: g, oldest: ver });
    else if (g) {
      mine.text = mine.text ? `${mine.text},${g}` : g;
      if (versionBefore(ver, mine.oldest)) mine.oldest = ver;
    }
  }

  private addBoards(boards: ScriptBoard[], opId: string, userId: string, at: number, date: string, ver: string): void {
    for (const c of boards) {
      // Off the board before and after: nothing to store (no rank or value
      // to show; no entry to update, as whatever put the user on the board
      // earlier was followed by a record taking them off, which holds the
      // newer version). Most records of a busy tenant's users.
      if (!(c.pr > 0) && !(c.rk > 0)) continue;
      const g = joinGroup(Array.isArray(c.g) ? c.g : []);
      const entry = (u: string, score: string | null) => this.boardEntries.set(boardEntryKey(c.i, c.r, g, u), { b: c.i, r: c.r, g, u, s: score, ver });
      entry(userId, c.rk > 0 ? c.sc : null);
      for (const u of Array.isArray(c.ev) ? c.ev : []) entry(u, null);
      const none = (x: number) => (x < 0 ? null : x);
      this.boardEvents.push({
        e: opId, b: c.i, r: c.r, u: userId, at, d: date,
        pr: none(c.pr), rk: none(c.rk), pv: c.pr > 0 ? c.pv : null, v: c.rk > 0 ? c.nv : null,
      });
    }
  }

  /**
   * The awards of an operation other than an event (an event keeps its own
   * in its row). Award ids derive from the operation and trigger, as in the
   * responses. Whether the record had any.
   */
  private addAwards(points: ScriptPoints | null, opId: string, userId: string, at: number, date: string, ver: string): boolean {
    const before = this.awards.length;
    for (const sys of Object.values(points ?? {})) {
      for (const [i, a] of awardList(sys.aw).entries()) {
        this.awards.push({ id: awardId(opId, a.t, i), u: userId, s: a.si, t: a.t, tv: a.v ?? null, e: opId, a: a.a, tot: a.tot, at, d: date, bo: awardList(a.bo), ver });
      }
    }
    return this.awards.length > before;
  }

  private touch(id: string, at: number, created: string, patch: string): void {
    let u = this.users.get(id);
    if (!u) this.users.set(id, (u = { id, p: {}, a: {}, created: null, updated: at }));
    if (created) u.created ??= Number(created);
    if (patch) {
      const p = JSON.parse(patch) as Record<string, string>;
      for (const k in p) {
        if (k.startsWith(ATTRIBUTE_PREFIX)) u.a[k.slice(ATTRIBUTE_PREFIX.length)] = p[k]!;
        else u.p[k] = p[k]!;
      }
    }
    u.updated = Math.max(u.updated, at);
  }
}

/**
 * A record's changed fields as one group of a user_state column:
 * `["version",field,value,...]`, spliced from the record's `uf` array
 * without decoding it ('' when it changed none). A record written before
 * `uf` was an array is converted.
 */
function fieldGroup(ver: string, uf: string): string {
  if (uf === '[]' || uf === '{}') return '';
  if (uf.startsWith('[')) return `["${ver}",${uf.slice(1)}`;
  const flat: (string | null)[] = [ver];
  for (const [f, v] of changedFields(uf)) flat.push(f, v);
  return JSON.stringify(flat);
}

/** Lua encodes an empty table as an object: a list that may be `{}`. */
const awardList = <T>(x: T[] | undefined): T[] => (Array.isArray(x) ? x : []);

/**
 * An event's awards, or null when it paid nothing; their kinds are added to
 * the batch's.
 */
function eventAwards(points: ScriptPoints | null, kinds: Map<string, AwardKind>): EventAward[] | null {
  let out: EventAward[] | null = null;
  for (const slot in points) {
    const aw = awardList(points[slot]!.aw);
    for (let i = 0; i < aw.length; i++) {
      const a = aw[i]!;
      const bo = awardList(a.bo);
      const kind: AwardKind = { system: a.si, trigger: a.t, version: a.v ?? null, boosts: bo.length ? bo.join(',') : null };
      const key = awardKindKey(kind);
      if (!kinds.has(key)) kinds.set(key, kind);
      (out ??= []).push([key, i, a.a, a.tot]);
    }
  }
  return out;
}

/**
 * An event's awards as its row keeps them (migrations/034, whose `awards`
 * view reads them back): four numbers an award separated by spaces, its
 * kind's id first.
 */
function packedAwards(aw: EventAward[] | null, kindIds: Map<string, string>): string | null {
  if (!aw) return null;
  let out = '';
  for (const [kind, place, amount, total] of aw) out += `${out ? ' ' : ''}${kindIds.get(kind)!} ${place} ${amount} ${total}`;
  return out;
}

/**
 * The entries to write when erasures newer than some of them exist: each
 * erased user's records older than their erasure left out (null: keep all).
 * One indexed query per batch, which finds nothing unless a user was erased
 * since the batch's oldest record was written.
 */
export async function keptAfterErasures(c: PoolClient, tenantId: string, entries: StreamEntry[]): Promise<StreamEntry[] | null> {
  if (entries.length === 0) return null;
  const { rows } = await c.query<{ user_hash: string; ver: string }>({
    name: 'flush-erasures',
    text: 'SELECT user_hash, ver FROM user_erasures WHERE tenant_id = $1 AND ver > $2',
    values: [tenantId, oldestVersion(entries)],
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

/** The version of the oldest of some stream entries ('' when none). */
function oldestVersion(entries: StreamEntry[]): string {
  let oldest = '';
  for (const [id] of entries) {
    const v = streamVersion(id);
    if (oldest === '' || versionBefore(v, oldest)) oldest = v;
  }
  return oldest;
}


/**
 * Write a collected batch inside the caller's transaction. A batch may come
 * twice (a crash between commit and acknowledgement), so every write is
 * idempotent: the rows kept as state are upserts that keep the newer version,
 * events are stored once (writeEvents), and the append-only history (awards,
 * rank changes) is written only for the operations this batch is the first
 * to store (writeOnce), so those tables need no unique index of their own.
 *
 * In two stages of writes independent of each other, each sent together
 * (db.ts together): on the flusher's pipelined connection a batch's
 * transaction takes about 10 round trips where one statement at a time
 * took 16 (docs/durability.md).
 * `firstTry`: rows already stored are unlikely (the batch's first attempt),
 * so the rows with a unique key are copied in without a savepoint, and one
 * stored before fails the batch with a unique violation; its retry (not a
 * first try) copies under savepoints and skips stored rows (see
 * copyUnlessStored). A pipeline cannot undo to a savepoint alone: the
 * statements sent behind a failed copy fail too.
 */
export async function writeBatch(c: PoolClient, tenantId: string, batch: Batch, firstTry = false): Promise<void> {
  const unseen = await eventsUnseen(c, tenantId, batch.events);
  const [first] = await stage(
    c,
    firstTry,
    () => writeOnce(c, tenantId, batch, unseen),
    () => writeUsers(c, tenantId, batch.users),
    () => writeBoardEntries(c, tenantId, batch.boardEntries),
    () => writeLeagueEntries(c, tenantId, batch.leagueEntries),
    () => writePeriods(c, tenantId, batch.periods),
    () => writeCompletions(c, tenantId, batch.completions, firstTry),
  );
  await together(
    c,
    () => writeBoardEvents(c, tenantId, batch.boardEvents.filter((x) => first.has(x.e))),
    () => writeAwards(c, tenantId, batch.awards.filter((x) => first.has(x.e))),
    // Last, after every row this batch locks: it holds the tenant's user_state lock to the commit.
    () => writeUserState(c, tenantId, batch.fields),
  );
}

/**
 * Steps of a batch independent of each other: sent together on a first try,
 * and in turn on a retry, whose copies may be undone to their savepoint
 * alone (nothing may be sent behind one before it is answered).
 */
const stage = <T extends unknown[]>(c: PoolClient, firstTry: boolean, ...steps: Steps<T>): Promise<T> =>
  firstTry ? together<T>(c, ...steps) : inTurn<T>(...steps);

/** Postgres's SQLSTATE for a unique key already taken. */
export const UNIQUE_VIOLATION = '23505';

/**
 * Whether none of a batch's events can have been stored before: each is
 * newer than the tenant's flush mark, which this takes to the commit
 * (store/flush-marks.ts). A batch of records read for the first time in
 * stream order is; a redelivery, a claim, a read flushing what a consumer
 * holds, or batches of two flushers committed out of order may not be.
 */
async function eventsUnseen(c: PoolClient, tenantId: string, events: EventRow[]): Promise<boolean> {
  if (!events.length) return true;
  let oldest = events[0]!.ver;
  let newest = oldest;
  let firstAt = events[0]!.at;
  for (const e of events) {
    if (versionBefore(e.ver, oldest)) oldest = e.ver;
    if (versionBefore(newest, e.ver)) newest = e.ver;
    if (e.at < firstAt) firstAt = e.at;
  }
  const before = await takeFlushMark(c, tenantId, newest, firstAt);
  return before !== null && versionBefore(before, oldest);
}

/**
 * Rows with a unique key, copied in (store/copy.ts); on a batch's first try
 * plainly (see writeBatch), else after a savepoint, set in the same
 * message. A batch seldom holds one stored before (a redelivery, a claim, a
 * read flushing what a consumer holds), so looking each up is done only
 * once the key refuses the copy: that
 * is undone to the savepoint and `insertNew` inserts the rows a lookup does
 * not find. Not ON CONFLICT: a speculative insert logs a confirmation
 * record of 48 bytes per row. A second flusher writing the same record at
 * the same moment waits for the first's commit there and then finds its
 * rows by lookup (or, should they meet again, the batch is retried: see
 * RETRYABLE in flusher.ts). Whether the copy stored every row.
 */
async function copyUnlessStored(c: PoolClient, table: string, columns: string, rows: CopyRows, firstTry: boolean, insertNew: () => Promise<void>): Promise<boolean> {
  if (firstTry) {
    await copyRows(c, table, columns, rows);
    return true;
  }
  try {
    await copyRows(c, table, columns, rows, `SAVEPOINT ${table}`);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
    await c.query(`ROLLBACK TO SAVEPOINT ${table}`);
    await insertNew();
    return false;
  }
}

/**
 * The events, and the ids of the other operations that pay awards: each
 * stored once (an event as writeEvents says; an operation under its unique
 * id). Returns the ids stored now, not before.
 */
async function writeOnce(c: PoolClient, tenantId: string, batch: Batch, unseen: boolean): Promise<Set<string>> {
  const [events, operations] = await together(
    c,
    () => writeEvents(c, tenantId, batch, unseen),
    () => writeOperations(c, tenantId, batch.operations),
  );
  return new Set([...events, ...operations]);
}

/**
 * The ids of the events stored now (writeOnce): copied in when none can be
 * stored already (`unseen`, see eventsUnseen), else each inserted unless a
 * lookup finds it. The lookup names the per-user index's key (a stored
 * event has the same user, metric and date) and the time, which picks the
 * month's partition; a second flusher of the tenant waits on the flush
 * mark until this one commits, and then finds its events.
 */
async function writeEvents(c: PoolClient, tenantId: string, batch: Batch, unseen: boolean): Promise<string[]> {
  const ev = batch.events;
  if (!ev.length) return [];
  const kindIds = await awardKindIds(c, tenantId, batch.awardKinds);
  const packed = ev.map((e) => packedAwards(e.aw, kindIds));
  const columns = 'id, tenant_id, user_id, metric_id, value, total, local_date, occurred_at, idempotency_key, attributes, ver, awards';
  if (unseen) {
    await copyRows(c, 'events', columns, eventRows(tenantId, ev, packed));
    return ev.map((e) => e.id);
  }
  const { rows } = await c.query<{ id: string }>({
    name: 'flush-events',
    text: `INSERT INTO events (${columns})
     SELECT x.id, $1, x.u, x.m, x.v, x.t, x.d, to_timestamp(x.at / 1000.0), x.ik, x.a, x.ver, x.aw
     FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, u text, m uuid, v numeric, t numeric, d date, at bigint, ik text, a jsonb, ver bigint, aw text)
     WHERE NOT EXISTS (SELECT FROM events e WHERE e.tenant_id = $1 AND e.occurred_at = to_timestamp(x.at / 1000.0) AND e.id = x.id
                         AND e.user_id = x.u AND e.metric_id = x.m AND e.local_date = x.d OFFSET 0)
     RETURNING id`,
    values: [tenantId, JSON.stringify(ev.map((e, i) => Object.assign({}, e, { aw: packed[i] })))],
  });
  return rows.map((r) => r.id);
}

/** The ids of the other operations paying awards stored now (writeOnce). */
async function writeOperations(c: PoolClient, tenantId: string, operations: string[]): Promise<string[]> {
  if (!operations.length) return [];
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO flushed_operations (id, tenant_id) SELECT x, $1 FROM unnest($2::uuid[]) AS x ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id`,
    [tenantId, operations],
  );
  return rows.map((r) => r.id);
}

/** A batch's events as COPY's rows, in writeOnce's column order (awards packed, see packedAwards). */
function eventRows(tenantId: string, ev: EventRow[], awards: (string | null)[]): CopyRows {
  const out = new CopyRows(ev.length);
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i]!;
    out.word(e.id).word(tenantId).field(e.u).word(e.m).field(e.v).word(e.t).word(e.d).time(e.at)
      .field(e.ik).field(e.a ? JSON.stringify(e.a) : null).word(e.ver).word(awards[i]!).end();
  }
  return out;
}

/**
 * Users and their profiles: created once (the stored ones skipped, as
 * events are: see writeOnce), then the others updated field by field unless
 * a newer update is stored. A user created now is not updated too: that
 * wrote each new user's row a second time.
 */
async function writeUsers(c: PoolClient, tenantId: string, users: Batch['users']): Promise<void> {
  if (!users.size) return;
  const rows = inKeyOrder(users);
  const json = JSON.stringify(rows);
  const { rows: created } = await c.query<{ id: string }>({
    name: 'flush-users-insert',
    text: `INSERT INTO users (tenant_id, id, email, name, tz, subscribe_to_emails, device_tokens, attributes, created, updated)
     SELECT $1, x.id, x.p->>'${EMAIL_FIELD}', x.p->>'${NAME_FIELD}', nullif(x.p->>'${ZONE_FIELD}', ''), coalesce(x.p->>'${SUBSCRIBED_FIELD}', '1') = '1',
            nullif(x.p->>'${DEVICE_TOKENS_FIELD}', '')::jsonb, x.a, to_timestamp(coalesce(x.created, x.updated) / 1000.0), to_timestamp(x.updated / 1000.0)
     FROM jsonb_to_recordset($2::jsonb) AS x(id text, p jsonb, a jsonb, created bigint, updated bigint)
     WHERE NOT EXISTS (SELECT FROM users WHERE tenant_id = $1 AND id = x.id OFFSET 0)
     RETURNING id`,
    values: [tenantId, json],
  });
  if (created.length === rows.length) return;
  const made = new Set(created.map((r) => r.id));
  await c.query({
    name: 'flush-users-update',
    text: `UPDATE users SET
       email = CASE WHEN x.p ? '${EMAIL_FIELD}' THEN x.p->>'${EMAIL_FIELD}' ELSE users.email END,
       name = CASE WHEN x.p ? '${NAME_FIELD}' THEN x.p->>'${NAME_FIELD}' ELSE users.name END,
       tz = CASE WHEN x.p ? '${ZONE_FIELD}' THEN nullif(x.p->>'${ZONE_FIELD}', '') ELSE users.tz END,
       subscribe_to_emails = CASE WHEN x.p ? '${SUBSCRIBED_FIELD}' THEN x.p->>'${SUBSCRIBED_FIELD}' = '1' ELSE users.subscribe_to_emails END,
       device_tokens = CASE WHEN x.p ? '${DEVICE_TOKENS_FIELD}' THEN nullif(x.p->>'${DEVICE_TOKENS_FIELD}', '')::jsonb ELSE users.device_tokens END,
       attributes = users.attributes || x.a,
       updated = to_timestamp(x.updated / 1000.0)
     FROM ${byKey('jsonb_to_recordset($2::jsonb) AS x(id text, p jsonb, a jsonb, updated bigint)', 'users',
       'tenant_id = $1 AND id = x.id AND updated <= to_timestamp(x.updated / 1000.0)')} x
     WHERE users.ctid = x.tid`,
    values: [tenantId, made.size ? JSON.stringify(rows.filter((u) => !made.has(u.id))) : json],
  });
}

/**
 * Live board entries (restored from on a rebuild), each with its stream
 * version, in one statement: each key looked up once, the stored entries
 * updated where older and the others inserted. Not an upsert, which locks
 * each existing row first and confirms each new one, a WAL record each. An
 * entry another flusher inserts meanwhile fails the batch, and the retry
 * updates it if this one is newer.
 */
async function writeBoardEntries(c: PoolClient, tenantId: string, boardEntries: Batch['boardEntries']): Promise<void> {
  if (!boardEntries.size) return;
  await c.query({
    name: 'flush-board-entries',
    // The insert (keys not found) and the update (keys found) touch different
    // rows, so the order Postgres runs them in does not matter.
    text: `WITH x AS (SELECT * FROM ${byKey('jsonb_to_recordset($2::jsonb) AS x(b uuid, r integer, g text, u text, s text, ver numeric)', 'board_entries',
       'tenant_id = $1 AND leaderboard_id = x.b AND run = x.r AND grp = x.g AND user_id = x.u', 'ctid AS tid, ver AS stored', true)} x),
     fresh AS (INSERT INTO board_entries (tenant_id, leaderboard_id, run, grp, user_id, score, ver)
       SELECT $1, x.b, x.r, x.g, x.u, x.s::double precision, x.ver FROM x WHERE x.tid IS NULL)
     UPDATE board_entries e SET score = x.s::double precision, ver = x.ver FROM x WHERE e.ctid = x.tid AND x.stored < x.ver`,
    values: [tenantId, JSON.stringify(inKeyOrder(boardEntries))],
  });
}

/** The first of each key's items, in their order. */
function firstOfEach<T>(items: T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Rank history of leaderboards (of operations stored for the first time): append-only, so copied in (store/copy.ts). */
async function writeBoardEvents(c: PoolClient, tenantId: string, rows: Batch['boardEvents']): Promise<void> {
  if (!rows.length) return;
  const out = new CopyRows(rows.length);
  for (const x of rows) out.word(tenantId).word(x.b).field(x.r).field(x.u).time(x.at).word(x.d).field(x.pr).field(x.rk).field(x.pv).field(x.v).end();
  await copyRows(c, 'leaderboard_events', 'tenant_id, leaderboard_id, run, user_id, at, local_date, previous_rank, rank, previous_value, value', out);
}

/**
 * Streak periods (a later record of a period wins): one statement looks
 * each up by key, updates the stored ones that changed and answers the keys
 * not stored, whose rows are then copied in (store/copy.ts). Not an
 * upsert: its speculative insert logs a 48-byte confirmation per row. A
 * row another flusher updates at the same moment keeps that flusher's
 * record, as one of the two would have under the upsert; a row it inserts
 * fails the batch, which is retried.
 */
async function writePeriods(c: PoolClient, tenantId: string, periods: Batch['periods']): Promise<void> {
  if (!periods.size) return;
  const { rows: absent } = await c.query<{ u: string; f: string; p: number }>({
    name: 'flush-periods',
    text: `WITH x AS (SELECT * FROM ${byKey('jsonb_to_recordset($2::jsonb) AS x(u text, f text, p integer, l integer, fr integer, pa integer)', 'streak_periods',
       'tenant_id = $1 AND user_id = x.u AND frequency = x.f AND period = x.p', 'ctid AS tid, length AS ol, used_freeze AS ofr, used_pause AS opa', true)} x),
     changed AS (
       UPDATE streak_periods SET length = x.l, used_freeze = x.fr = 1, used_pause = x.pa = 1 FROM x
       WHERE streak_periods.ctid = x.tid AND (x.ol, x.ofr, x.opa) IS DISTINCT FROM (x.l, x.fr = 1, x.pa = 1))
     SELECT u, f, p FROM x WHERE tid IS NULL`,
    values: [tenantId, JSON.stringify(inKeyOrder(periods))],
  });
  if (!absent.length) return;
  const out = new CopyRows(absent.length);
  for (const k of absent) {
    const x = periods.get(periodKey(k.u, k.f, k.p))!;
    out.word(tenantId).field(x.u).word(x.f).field(x.p).field(x.l).word(x.fr === 1 ? 't' : 'f').word(x.pa === 1 ? 't' : 'f').end();
  }
  await copyRows(c, 'streak_periods', 'tenant_id, user_id, frequency, period, length, used_freeze, used_pause', out);
}

/**
 * Achievement completions, each (achievement, user) once: the first stays.
 * Copied in unless stored (copyUnlessStored).
 */
async function writeCompletions(c: PoolClient, tenantId: string, completions: Batch['completions'], firstTry: boolean): Promise<void> {
  if (!completions.length) return;
  const rows = firstOfEach(completions, (d) => `${d.a}\0${d.u}`);
  const out = new CopyRows(rows.length);
  for (const d of rows) out.word(tenantId).word(d.a).field(d.u).time(d.at).word(d.e).end();
  await copyUnlessStored(c, 'achievement_completions', 'tenant_id, achievement_id, user_id, achieved_at, event_id', out, firstTry, async () => {
    await c.query({
      name: 'flush-completions',
      text: `INSERT INTO achievement_completions (tenant_id, achievement_id, user_id, achieved_at, event_id)
     SELECT $1, x.a, x.u, to_timestamp(x.at / 1000.0), x.e
     FROM jsonb_to_recordset($2::jsonb) AS x(a uuid, u text, at bigint, e uuid)
     WHERE NOT EXISTS (SELECT FROM achievement_completions d WHERE d.tenant_id = $1 AND d.achievement_id = x.a AND d.user_id = x.u OFFSET 0)`,
      values: [tenantId, JSON.stringify(rows)],
    });
  });
}

/**
 * Points awards of operations other than events (stored for the first
 * time), in the batch's order (their seq orders an operation's awards):
 * append-only, so copied in (store/copy.ts).
 */
async function writeAwards(c: PoolClient, tenantId: string, rows: Batch['awards']): Promise<void> {
  if (!rows.length) return;
  const out = new CopyRows(rows.length);
  for (const x of rows) {
    out.word(x.id).word(tenantId).field(x.u).word(x.s).word(x.t).word(x.tv).word(x.e).field(x.a).field(x.tot).time(x.at).word(x.d).field(JSON.stringify(x.bo)).word(x.ver).end();
  }
  await copyRows(c, 'points_awards', 'id, tenant_id, user_id, system_id, trigger_id, trigger_version, event_id, awarded, total, at, local_date, boosts, ver', out);
}
