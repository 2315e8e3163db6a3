import type { PoolClient } from 'pg';

/*
 * What an event's awards share, kept once per tenant (migrations/033): the
 * system, trigger, trigger version and boosts of an award. An event's row
 * keeps each award as four integers, the first its kind's id here.
 */

export interface AwardKind {
  system: string;
  trigger: string;
  version: string | null;
  /** The boosts' ids, comma-separated (null: none). */
  boosts: string | null;
}

/** The key a batch collects kinds under: one per distinct kind. */
export const awardKindKey = (k: AwardKind) => `${k.system},${k.trigger},${k.version ?? ''},${k.boosts ?? ''}`;

const LOOKUP = `SELECT x.k, a.id FROM jsonb_to_recordset($2::jsonb) AS x(k text, system uuid, trigger uuid, version uuid, boosts text)
  JOIN award_kinds a ON a.tenant_id = $1 AND a.system_id = x.system AND a.trigger_id = x.trigger
   AND a.trigger_version IS NOT DISTINCT FROM x.version AND a.boosts IS NOT DISTINCT FROM x.boosts`;

/**
 * The ids of a batch's award kinds, by key, made where new. Looked up first,
 * since a tenant's kinds are nearly all stored: one statement a batch. New
 * ones are inserted in key order (two flushers making the same kinds wait
 * for each other rather than deadlock), and a kind another flusher made
 * meanwhile is skipped, then found. Inside the batch's transaction, so a
 * rolled-back batch leaves no kind it made.
 */
export async function awardKindIds(c: PoolClient, tenantId: string, kinds: Map<string, AwardKind>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (!kinds.size) return ids;
  const find = async (keys: string[]) => {
    const { rows } = await c.query<{ k: string; id: string }>({
      name: 'flush-award-kinds',
      text: LOOKUP,
      values: [tenantId, JSON.stringify(keys.map((k) => Object.assign({ k }, kinds.get(k))))],
    });
    for (const r of rows) ids.set(r.k, r.id);
  };
  await find([...kinds.keys()]);
  if (ids.size === kinds.size) return ids;
  const missing = [...kinds.keys()].filter((k) => !ids.has(k)).sort();
  await c.query({
    name: 'flush-award-kinds-insert',
    text: `INSERT INTO award_kinds (tenant_id, system_id, trigger_id, trigger_version, boosts)
      SELECT $1, x.system, x.trigger, x.version, x.boosts FROM jsonb_to_recordset($2::jsonb) AS x(system uuid, trigger uuid, version uuid, boosts text)
      ON CONFLICT DO NOTHING`,
    values: [tenantId, JSON.stringify(missing.map((k) => kinds.get(k)))],
  });
  await find(missing);
  if (ids.size !== kinds.size) throw new Error('award kinds missing after their insert');
  return ids;
}
