import type { Pool, PoolClient } from 'pg';

/** A config version made by applying a document. */
export interface ConfigVersion {
  version: number;
  at: Date;
  keyId: string;
  changes: number;
}

export async function recordVersion(c: PoolClient, tenantId: string, v: ConfigVersion, document: unknown): Promise<void> {
  await c.query('INSERT INTO config_versions (tenant_id, version, at, key_id, changes, document) VALUES ($1, $2, $3, $4, $5, $6)', [
    tenantId, v.version, v.at, v.keyId, v.changes, JSON.stringify(document),
  ]);
}

/** Newest first. */
export async function listVersions(db: Pool, tenantId: string): Promise<ConfigVersion[]> {
  const { rows } = await db.query<{ version: string; at: Date; key_id: string; changes: number }>(
    'SELECT version, at, key_id, changes FROM config_versions WHERE tenant_id = $1 ORDER BY version DESC',
    [tenantId],
  );
  return rows.map((r) => ({ version: Number(r.version), at: r.at, keyId: r.key_id, changes: r.changes }));
}

/** The document a version left, or null when no document made that version. */
export async function versionDocument(db: Pool, tenantId: string, version: number): Promise<unknown> {
  const { rows } = await db.query<{ document: unknown }>('SELECT document FROM config_versions WHERE tenant_id = $1 AND version = $2', [tenantId, version]);
  return rows[0]?.document ?? null;
}

/** The tenant's config version (in a transaction: as of its snapshot). */
export async function configVersion(c: Pool | PoolClient, tenantId: string): Promise<number> {
  const { rows } = await c.query<{ config_version: string }>('SELECT config_version FROM tenants WHERE id = $1', [tenantId]);
  return Number(rows[0]!.config_version);
}
