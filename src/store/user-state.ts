import type { PoolClient } from 'pg';
import { byKey, joinJsonTexts, jsonTextArray, together } from './db';

/*
 * user_state: each user hash as one row, every field with the stream version
 * of the record that last wrote it (two flushers may commit neighbouring
 * batches in either order, and an older record must not take a field back).
 *
 * Stored as JSON text grouping the fields by version:
 *   [[version, field, value, field, value, ...], ...]
 * (a value null: deleted; versions as strings, exact). A version is written
 * once per group instead of once per field, and no jsonb structure is kept
 * around each value: a third of the old row. A field named by more than one
 * group has its newest version's value, whatever the groups' order.
 *
 * Two columns: `state`, the whole hash as of some batch, and `recent`, the
 * fields batches changed since (newer than state's, so they win). An update
 * rewrites the row, and Postgres logs only the bytes between the first and
 * the last that differ when the new version stays on the page (fillfactor).
 * A batch puts its groups in front of `recent`'s, the last column: its old
 * bytes stay the new row's tail, so the update logs the new groups (and
 * the length before them). Once `recent` outgrows `state`, the two are
 * folded into `state`.
 */

/** A user's stored fields: field -> [value (null: deleted), stream version]. */
export type StoredFields = Map<string, [value: string | null, ver: string]>;

/** A stream entry id ('ms-seq') as one orderable number: the version a record gives the fields it writes. */
export function streamVersion(id: string): string {
  const dash = id.indexOf('-');
  const ms = dash < 0 ? id : id.slice(0, dash);
  const seq = dash < 0 ? '' : id.slice(dash + 1);
  // ms * 1,000,000 + seq, spelled out while seq has at most six digits (always, in practice) and ms no leading zero.
  if (seq.length <= 6 && ms !== '' && ms[0] !== '0') return ms + seq.padStart(6, '0');
  return (BigInt(ms) * 1_000_000n + BigInt(seq)).toString();
}

/** Whether one stream version (decimal digits, no leading zeros) is older than another. */
export const versionBefore = (a: string, b: string) => a.length < b.length || (a.length === b.length && a < b);

/** The fields of one column, each at the newest version any of its groups gives it (groups may come in any order). */
export function decodeState(text: string): StoredFields {
  const out: StoredFields = new Map();
  for (const g of JSON.parse(text) as (string | null)[][]) {
    const ver = g[0]!;
    for (let i = 1; i + 1 < g.length; i += 2) {
      const had = out.get(g[i]!);
      if (!had || versionBefore(had[1], ver)) out.set(g[i]!, [g[i + 1]!, ver]);
    }
  }
  return out;
}

/** The fields a user has (deleted ones left out), from a row's two columns. */
export function stateValues(state: string, recent: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const [f, [v]] of rowFields(state, recent)) if (v !== null) out.set(f, v);
  return out;
}

/** A row's fields, each at its newest version in either column. */
function rowFields(state: string, recent: string | null): StoredFields {
  const out = decodeState(state);
  if (recent !== null) mergeFields(out, decodeState(recent));
  return out;
}

/** Fields as a column's text: one group per version, oldest first. */
export function encodeState(fields: StoredFields): string {
  const groups = new Map<string, (string | null)[]>();
  for (const [f, [v, ver]] of fields) {
    let g = groups.get(ver);
    if (!g) groups.set(ver, (g = [ver]));
    g.push(f, v);
  }
  return JSON.stringify([...groups.keys()].sort((a, b) => (versionBefore(a, b) ? -1 : 1)).map((ver) => groups.get(ver)!));
}

/**
 * Column texts folded into one: each field once, in the newest group that
 * names it (a fold of a row's columns and a batch's groups into `state`).
 * Works on the groups as parsed, with no entry per field but a name in a
 * set: a fold runs every few batches of a user, and decoding each field
 * into a map and encoding it back was most of its cost.
 */
export function foldColumns(texts: string[]): string {
  const groups: (string | null)[][] = [];
  for (const text of texts) for (const g of JSON.parse(text) as (string | null)[][]) groups.push(g);
  groups.sort((a, b) => (versionBefore(a[0]!, b[0]!) ? 1 : versionBefore(b[0]!, a[0]!) ? -1 : 0));
  const seen = new Set<string>();
  const out: (string | null)[][] = [];
  for (const g of groups) {
    // The group as it is until a field in it is found named by a newer one.
    let kept: (string | null)[] | null = null;
    for (let i = 1; i + 1 < g.length; i += 2) {
      const f = g[i]!;
      if (!seen.has(f)) {
        seen.add(f);
        kept?.push(f, g[i + 1]!);
      } else kept ??= g.slice(0, i);
    }
    const k = kept ?? g;
    if (k.length > 1) out.push(k);
  }
  return JSON.stringify(out.reverse());
}

/** Merge a batch's fields into the stored ones, the newer version winning field by field. */
export function mergeFields(stored: StoredFields, batch: StoredFields): void {
  for (const [f, [v, ver]] of batch) {
    const old = stored.get(f);
    if (!old || versionBefore(old[1], ver)) stored.set(f, [v, ver]);
  }
}

/**
 * The newest version a column's groups carry. A group starts the text
 * (`[["`) or follows another (`],["`). Inside a value JSON escapes every
 * quote, so only a value ending in `],[` matches too (with its closing
 * quote), and what follows it up to the next quote is at most three
 * characters: shorter than any version, so it never wins.
 */
function newestVersion(text: string | null): string {
  let newest = '';
  for (let at = text?.startsWith('[["') ? 1 : -1; text && at >= 0; ) {
    const ver = text.slice(at + 2, text.indexOf('"', at + 2));
    if (versionBefore(newest, ver)) newest = ver;
    const next = text.indexOf('],["', at);
    at = next < 0 ? -1 : next + 2;
  }
  return newest;
}

/**
 * A batch's changed fields for one user: its records' groups in stream
 * order, as the text between a column's outer brackets (a field may be in
 * more than one: the newest wins), and the oldest version among them.
 */
export interface BatchGroups {
  text: string;
  oldest: string;
}

/**
 * The column text of a batch's groups that are newer than the row's (null:
 * none). Usually every one is (the batch's records come after the ones
 * stored): the groups as they came, found without decoding the row; a
 * batch committed late is filtered field by field.
 */
function freshGroups(state: string, recent: string | null, batch: BatchGroups): string | null {
  if (!batch.text) return null;
  const a = newestVersion(state);
  const b = newestVersion(recent);
  if (versionBefore(versionBefore(a, b) ? b : a, batch.oldest)) return `[${batch.text}]`;
  const stored = rowFields(state, recent);
  const fresh: StoredFields = new Map();
  for (const [f, e] of decodeState(`[${batch.text}]`)) {
    const had = stored.get(f);
    if (!had || versionBefore(had[1], e[1])) fresh.set(f, e);
  }
  return fresh.size ? encodeState(fresh) : null;
}

/**
 * Write a batch's fields (users -> fields), users in key order. Read, merged
 * here and written back under a lock on the tenant's user_state, held to
 * the commit: another flusher of the tenant reads the rows after this one
 * committed them. The flusher takes it after every other write of the
 * batch (only the batch's webhook step, inserts of rows of its own, follows),
 * so it is held briefly and no row lock is waited on while holding it.
 */
export async function writeUserState(c: PoolClient, tenantId: string, batch: Map<string, BatchGroups>): Promise<void> {
  if (!batch.size) return;
  const ids = [...batch.keys()].sort();
  // The read after the lock, sent with it (Postgres runs them in turn).
  const [, { rows }] = await together(
    c,
    () => c.query({
      name: 'user-state-lock',
      text: `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || ':user_state:' || $1, 0))`,
      values: [tenantId],
    }),
    () => c.query<{ user_id: string; state: string; recent: string | null; tid: string }>({
      name: 'user-state-read',
      text: `SELECT user_id, state, recent, tid FROM ${byKey('unnest($2::text[]) AS x(u)', 'user_state', 'tenant_id = $1 AND user_id = x.u', 'user_id, state, recent, ctid AS tid')} x`,
      values: [tenantId, ids],
    }),
  );
  // pg hands a tid back as its text, '(page,item)', which the update takes again.
  const stored = new Map(rows.map((r) => [r.user_id, r]));
  // Rows that exist are updated and new ones inserted, each plainly: an
  // upsert would lock each existing row first, a WAL record of its own.
  // An update sends the groups to put in front of recent, or, folding, the
  // whole new state (recent then null).
  const updated = { tids: [] as string[], states: [] as (string | null)[], fronts: [] as (string | null)[] };
  const created = { users: [] as string[], states: [] as string[] };
  for (const u of ids) {
    const groups = batch.get(u)!;
    const old = stored.get(u);
    if (old === undefined) {
      created.users.push(u);
      created.states.push(`[${groups.text}]`);
      continue;
    }
    const front = freshGroups(old.state, old.recent, groups);
    if (front === null) continue;
    updated.tids.push(old.tid);
    if (front.length + (old.recent?.length ?? 0) <= old.state.length) {
      updated.states.push(null);
      updated.fronts.push(front);
      continue;
    }
    updated.states.push(foldColumns(old.recent === null ? [old.state, front] : [old.state, old.recent, front]));
    updated.fronts.push(null);
  }
  await together(
    c,
    // By the row versions just read, without looking each key up again: the lock keeps them current.
    async () => {
      if (!updated.tids.length) return;
      await c.query({
        name: 'user-state-update',
        text: `UPDATE user_state SET state = coalesce(x.s, state),
                 recent = CASE WHEN x.s IS NOT NULL THEN NULL WHEN recent IS NULL THEN x.r ELSE left(x.r, -1) || ',' || substr(recent, 2) END
               FROM unnest($1::tid[], ${jsonTextArray('$2')}, ${jsonTextArray('$3')}) AS x(tid, s, r)
               WHERE user_state.ctid = x.tid`,
        values: [updated.tids, joinJsonTexts(updated.states), joinJsonTexts(updated.fronts)],
      });
    },
    async () => {
      if (!created.users.length) return;
      await c.query({
        name: 'user-state-insert',
        text: `INSERT INTO user_state (tenant_id, user_id, state) SELECT $1, x.u, x.s FROM unnest($2::text[], ${jsonTextArray('$3')}) AS x(u, s)`,
        values: [tenantId, created.users, joinJsonTexts(created.states)],
      });
    },
  );
}
