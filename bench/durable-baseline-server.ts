import { randomUUID } from 'node:crypto';
import uWS from 'uWebSockets.js';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { readBody } from './uws-body';

/**
 * The durable baseline: Laurel's architecture done as leanly as it can be,
 * for the bench to measure Laurel against. uWebSockets.js; one Lua call per
 * event that checks and records the idempotency key, adds to the user's
 * total, updates a leaderboard, answers the rank and appends the event to a
 * stream; a flusher in the same process that writes every event to Postgres
 * (a row per event, an upsert of the user's total) and acknowledges only
 * after the commit. `GET /stats` says how many events it accepted, so the
 * bench can check that each reached Postgres.
 * Env: PORT, REDIS_URL, DATABASE_URL, SCHEMA (created, tables made fresh).
 */
const port = Number(process.env.PORT ?? 0);
const schema = process.env.SCHEMA ?? 'bench_durable';
const redis = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
const reader = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379'); // the flusher's blocking reads
const db = new Pool({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/laurel', max: 4, options: `-c search_path=${schema}` });
const tag = randomUUID().slice(0, 8);
const K = { idem: `bench:durable:${tag}:idem`, totals: `bench:durable:${tag}:totals`, board: `bench:durable:${tag}:board`, stream: `bench:durable:${tag}:stream` };

redis.defineCommand('event', {
  numberOfKeys: 4,
  lua: `
if ARGV[3] ~= '' and redis.call('SADD', KEYS[1], ARGV[3]) == 0 then
  return {'REPLAY', redis.call('HGET', KEYS[2], ARGV[1]) or '0'}
end
local total = redis.call('HINCRBYFLOAT', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], total, ARGV[1])
local rank = redis.call('ZREVRANK', KEYS[3], ARGV[1])
redis.call('XADD', KEYS[4], '*', 'id', ARGV[4], 'u', ARGV[1], 'v', ARGV[2], 't', total, 'at', ARGV[5])
return {'OK', total, rank}`,
});
type EventCall = (idem: string, totals: string, board: string, stream: string, user: string, value: string, key: string, id: string, at: number) => Promise<[string, string, number?]>;
const event = (redis as unknown as { event: EventCall }).event.bind(redis);

let accepted = 0;
let flushed = 0;

async function setup(): Promise<void> {
  await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await db.query(`DROP TABLE IF EXISTS events, totals`);
  await db.query(`CREATE TABLE events (id uuid PRIMARY KEY, user_id text NOT NULL, value numeric NOT NULL, total numeric NOT NULL, at timestamptz NOT NULL)`);
  await db.query(`CREATE INDEX events_by_user ON events (user_id, at)`);
  await db.query(`CREATE TABLE totals (user_id text PRIMARY KEY, total numeric NOT NULL)`);
  await redis.xgroup('CREATE', K.stream, 'flush', '$', 'MKSTREAM');
}

/** Read a batch, write it in one transaction, acknowledge after the commit; forever. */
async function flush(): Promise<void> {
  for (;;) {
    const res = (await reader.xreadgroup('GROUP', 'flush', 'f', 'COUNT', 500, 'BLOCK', 100, 'STREAMS', K.stream, '>')) as [string, [string, string[]][]][] | null;
    const entries = res?.[0]?.[1] ?? [];
    if (!entries.length) continue;
    const rows = entries.map(([, f]) => ({ id: f[1]!, u: f[3]!, v: f[5]!, t: f[7]!, at: Number(f[9]) }));
    const last = new Map(rows.map((r) => [r.u, r.t]));
    const c = await db.connect();
    try {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO events (id, user_id, value, total, at)
         SELECT x.id, x.u, x.v, x.t, to_timestamp(x.at / 1000.0) FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, u text, v numeric, t numeric, at bigint)
         ON CONFLICT (id) DO NOTHING`,
        [JSON.stringify(rows)],
      );
      await c.query(
        `INSERT INTO totals (user_id, total) SELECT x.u, x.t FROM jsonb_to_recordset($1::jsonb) AS x(u text, t numeric)
         ON CONFLICT (user_id) DO UPDATE SET total = excluded.total`,
        [JSON.stringify([...last].sort(([a], [b]) => (a < b ? -1 : 1)).map(([u, t]) => ({ u, t })))],
      );
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
    const ids = entries.map((e) => e[0]);
    await reader.multi().xack(K.stream, 'flush', ...ids).xdel(K.stream, ...ids).exec();
    flushed += entries.length;
  }
}

const json = (res: uWS.HttpResponse, status: string, body: unknown) =>
  res.cork(() => res.writeStatus(status).writeHeader('Content-Type', 'application/json').end(JSON.stringify(body)));

setup().then(() => {
  flush().catch((err) => {
    process.stderr.write(`durable baseline flusher failed: ${(err as Error).message}\n`);
    process.exit(1);
  });
  uWS
    .App()
    .get('/stats', (res) => {
      let gone = false;
      res.onAborted(() => (gone = true));
      reader.xlen(K.stream).then((backlog) => gone || json(res, '200 OK', { accepted, flushed, backlog }));
    })
    .post('/*', (res, req) => {
      const key = req.getHeader('idempotency-key');
      readBody(res, (raw, aborted) => {
        const body = JSON.parse(raw) as { user: { id: string }; value: number };
        const id = randomUUID();
        event(K.idem, K.totals, K.board, K.stream, body.user.id, String(body.value), key, id, Date.now()).then(([code, total, rank]) => {
          if (code === 'OK') accepted++;
          if (aborted()) return;
          json(res, code === 'OK' ? '201 Created' : '202 Accepted', { eventId: id, total: Number(total), rank: rank === undefined ? null : rank + 1 });
        });
      });
    })
    .listen('127.0.0.1', port, (sock) => {
      if (!sock) process.exit(1);
      process.stdout.write(`${uWS.us_socket_local_port(sock)}\n`);
    });
});
