import typia from 'typia';
import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { notFound, invalid } from '../../errors';
import { ok, route } from '../define';
import { DeadLetterRow, DeadLetters, decodeRecord, describeError, isPermanent } from '../../pipeline/dead-letters';
import type { Flusher } from '../../pipeline/flusher';
import type { DeadLetter, DeadLetterReplayed } from '../../wire/admin';
import { setAsideRoutes } from './set-aside';

const deadLetterJson = (r: DeadLetterRow): DeadLetter => ({
  id: r.id,
  streamId: r.stream_id,
  record: r.record,
  error: r.error,
  sqlstate: r.sqlstate,
  firstFailedAt: r.first_failed_at.toISOString(),
  lastFailedAt: r.last_failed_at.toISOString(),
  replays: r.replays,
});

/**
 * The tenant's dead letters: list (newest first), get, discard by `ids`, and
 * replay one once the cause is fixed (a constraint relaxed, a column
 * widened). A replay writes the record through the flusher's own code, so it
 * lands exactly as it would have; a record whose data was superseded
 * meanwhile changes nothing older versions may not (fields are versioned).
 */
export function deadLetterRoutes(ctx: Ctx, flusher: Flusher, deadLetters: DeadLetters) {
  const tag = 'Admin: dead letters';
  return [
    ...setAsideRoutes(
      {
        list: async (tenantId, limit, skip) => (await deadLetters.list(tenantId, limit, skip)).map(deadLetterJson),
        get: async (tenantId, id) => {
          const row = await deadLetters.get(tenantId, id);
          return row && deadLetterJson(row);
        },
        discard: (tenantId, ids) => deadLetters.discard(tenantId, ids),
      },
      {
        path: '/admin/v1/dead-letters', tag, name: 'admin_dead_letters', noun: 'Dead letter',
        item: typia.json.schema<DeadLetter>(), items: typia.json.schema<DeadLetter[]>(),
        list: {
          summary: 'List change records Postgres refused',
          description:
            'Records the flusher could not write for good (a data error, not an outage) and set aside so the rest of their batch was written. ' +
            'While any exist, /readyz reports the flusher as degraded.',
          answer: 'A page of dead letters, newest first',
        },
        get: { summary: 'Get a dead letter', answer: 'The dead letter, with its record and error' },
        discard: { summary: 'Discard dead letters (by id)', description: 'Their records are never written.', answer: 'What was discarded, and ids not found' },
      },
    ),
    route({
      method: 'post', path: '/admin/v1/dead-letters/:id/replay', operationId: 'admin_dead_letters_replay', tag, auth: 'admin',
      summary: 'Write a dead letter to Postgres again',
      description: 'After fixing the cause. On success the dead letter is removed; if Postgres still refuses it, 422 with the error (kept on the dead letter).',
      responses: { 200: { description: 'Written; the dead letter is gone', schema: typia.json.schema<DeadLetterReplayed>() } },
      handler: async ({ tenant, params }) => {
        const id = uuidParam(params.id);
        const row = await deadLetters.get(tenant.id, id);
        if (!row) throw notFound('Dead letter not found');
        try {
          await flusher.replay(tenant, row.stream_id, decodeRecord(row.record));
        } catch (err) {
          // An outage is a 503 like anywhere else; the record stays as it was.
          if (!isPermanent(err)) throw err;
          await deadLetters.failedAgain(tenant.id, id, err);
          throw invalid(`Postgres still refuses the record: ${describeError(err).message}`);
        }
        await deadLetters.remove(tenant.id, id);
        return ok({ id, replayed: true as const });
      },
    }),
  ];
}
