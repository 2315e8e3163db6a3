import type { Ctx } from '../../context';
import { uuidParam } from '../../http/body';
import { notFound, invalid } from '../../errors';
import { reply, Route } from '../../http/server';
import { DEAD_LETTER_COLS, DeadLetterRow, DeadLetters, decodeRecord, describeError, isPermanent } from '../../pipeline/dead-letters';
import type { Flusher } from '../../pipeline/flusher';
import type { DeadLetter, DeadLetterReplayed } from '../../wire/admin';
import { readDeleteRoutes, Resource, scopeOf } from './resource';

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

const DEAD_LETTERS: Resource<DeadLetterRow> = {
  path: '/admin/v1/dead-letters',
  table: 'dead_letters',
  cols: DEAD_LETTER_COLS,
  order: 'first_failed_at DESC, id',
  noun: 'Dead letter',
  plain: true,
  json: deadLetterJson,
};

/**
 * The tenant's dead letters: list (newest first), get, discard by `ids`, and
 * replay one once the cause is fixed (a constraint relaxed, a column
 * widened). A replay writes the record through the flusher's own code, so it
 * lands exactly as it would have; a record whose data was superseded
 * meanwhile changes nothing older versions may not (fields are versioned).
 */
export function deadLetterRoutes(ctx: Ctx, flusher: Flusher, deadLetters: DeadLetters): Route[] {
  return [
    ...readDeleteRoutes(ctx, DEAD_LETTERS),
    {
      method: 'post',
      pattern: '/admin/v1/dead-letters/:id/replay',
      handler: async (req) => {
        const { tenant } = await scopeOf(ctx, DEAD_LETTERS as Resource<unknown>, req);
        const id = uuidParam(req.params[0]!);
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
        return reply(200, { id, replayed: true } satisfies DeadLetterReplayed);
      },
    },
  ];
}
