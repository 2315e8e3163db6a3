import type { Pool } from 'pg';
import { SecretBox } from '../domain/secret-box';
import { tx } from './db';

/**
 * Every column holding a stored credential, sealed with the instance's
 * SecretBox. A new kind of credential adds its column here, so it is sealed
 * on start and re-sealed by `npm run secrets:rekey` with the others.
 */
export const SEALED_COLUMNS: readonly { table: string; column: string; id: string }[] = [
  { table: 'webhooks', column: 'secret', id: 'id' },
  // A channel's settings are sealed whole (store/messages.ts).
  { table: 'message_channels', column: 'settings', id: "tenant_id::text || ':' || channel" },
];

/**
 * Seal what is still in the clear (rows written before sealing existed) and,
 * with `rekey`, re-seal what an older key sealed under the current one.
 * Returns the values changed. Each table is done in one transaction, its rows
 * locked, so processes starting together do the work once.
 */
export async function resealSecrets(db: Pool, box: SecretBox, rekey = false): Promise<number> {
  let changed = 0;
  for (const { table, column, id } of SEALED_COLUMNS) {
    changed += await tx(db, async (c) => {
      const { rows } = await c.query<{ id: string; value: string }>(
        `SELECT ${id} AS id, ${column} AS value FROM ${table} WHERE ${rekey ? 'true' : `${column} NOT LIKE 'enc:v1:%'`} FOR UPDATE`,
      );
      let n = 0;
      for (const r of rows) {
        if (SecretBox.isSealed(r.value) && box.current(r.value)) continue;
        const plain = SecretBox.isSealed(r.value) ? box.open(r.value) : r.value;
        await c.query(`UPDATE ${table} SET ${column} = $2 WHERE ${id} = $1`, [r.id, box.seal(plain)]);
        n++;
      }
      return n;
    });
  }
  return changed;
}

/** A stored credential's plain text (a value still in the clear, from before sealing, is taken as is). */
export const openSealed = (box: SecretBox, stored: string): string => (SecretBox.isSealed(stored) ? box.open(stored) : stored);
