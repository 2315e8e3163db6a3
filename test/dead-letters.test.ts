import { randomBytes } from 'node:crypto';
import t from 'tap';
import { sharedRedis, startServer, TestServer } from './helpers/harness';

// A record Postgres refuses for good must not hold back its batch or its
// tenant: it is set aside (a dead letter), everything else is written, and
// an operator sees it, replays it once the cause is fixed, or discards it.

/** A sample's value in a scrape of /metrics. */
async function scraped(s: TestServer, name: string): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}
const deadLetteredTotal = (s: TestServer) => scraped(s, 'laurel_flusher_dead_letters_total');
const waiting = (s: TestServer) => scraped(s, 'laurel_flusher_dead_letters');

/** The user's metric total as Postgres has it (event summaries read the flushed events). */
async function flushedTotal(s: TestServer, user: string): Promise<number> {
  const r = await s.call('GET', `/v1/users/${user}/metrics/m/event-summary?aggregation=daily&startDate=2026-03-10&endDate=2026-03-10`);
  return r.body[0].total;
}

const ready = async (s: TestServer) => (await s.call('GET', '/readyz', { key: null })).body;

t.test('a refused record is set aside; the rest of its batch lands; replay after the fix', async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  // Stands in for any data Postgres refuses (the edge lets through what the columns cannot hold).
  await s.app.ctx.db.query(`ALTER TABLE events ADD CONSTRAINT no_poison CHECK (user_id <> 'poison')`);
  await s.app.flusher.stop(); // so the records below form one batch
  const countedBefore = await deadLetteredTotal(s);
  for (const u of ['a', 'b', 'poison', 'c', 'd']) t.equal((await s.event('m', { user: { id: u }, value: 2 })).status, 201);

  await s.drain();
  t.equal((await s.app.flusher.lag()).entries, 0, 'the stream is empty: nothing is retried forever');
  for (const u of ['a', 'b', 'c', 'd']) t.equal(await flushedTotal(s, u), 2, `${u}'s event, in the same batch, is in Postgres`);
  t.equal(await flushedTotal(s, 'poison'), 0, 'the refused event is not');

  const degraded = await ready(s);
  t.match(degraded, { status: 'ok', flusher: 'degraded', deadLetters: 1 }, '/readyz says so, and stays 200');
  t.equal(await deadLetteredTotal(s), countedBefore + 1, '/metrics counts it');
  t.equal(await waiting(s), 1, 'and shows it waiting');

  const list = await s.call('GET', '/admin/v1/dead-letters');
  t.equal(list.status, 200);
  t.equal(list.body.length, 1);
  const [dl] = list.body;
  t.match(dl, { streamId: /^\d+-\d+$/, sqlstate: '23514', error: /no_poison/, replays: 0, record: { k: 'ev' } });
  t.match(JSON.parse(dl.record.e), { u: 'poison', v: 2 }, 'the record as the script wrote it');
  t.same((await s.call('GET', `/admin/v1/dead-letters/${dl.id}`)).body, dl);
  t.same((await s.call('GET', '/admin/v1/dead-letters', { tenant: 'other' })).status, 404, 'tenant-scoped (no such tenant)');

  const still = await s.call('POST', `/admin/v1/dead-letters/${dl.id}/replay`);
  t.equal(still.status, 422, 'a replay before the fix fails');
  t.match(still.body.error, /no_poison/);
  t.match((await s.call('GET', `/admin/v1/dead-letters/${dl.id}`)).body, { replays: 1, error: /no_poison/ }, 'and stays, with the new error');

  await s.app.ctx.db.query('ALTER TABLE events DROP CONSTRAINT no_poison');
  const replayed = await s.call('POST', `/admin/v1/dead-letters/${dl.id}/replay`);
  t.same(replayed.body, { id: dl.id, replayed: true });
  t.equal(await flushedTotal(s, 'poison'), 2, 'the event is in Postgres now');
  t.same((await s.call('GET', '/admin/v1/dead-letters')).body, [], 'and no longer a dead letter');
  t.equal((await s.call('GET', `/admin/v1/dead-letters/${dl.id}`)).status, 404);
  t.match(await ready(s), { status: 'ok', flusher: 'ok', deadLetters: 0 });
  t.equal(await waiting(s), 0);
  t.equal(await deadLetteredTotal(s), countedBefore + 1, 'the counter keeps counting what happened');
  t.equal((await s.call('POST', `/admin/v1/dead-letters/${dl.id}/replay`)).status, 404);
});

t.test('a record holding NUL is kept exactly, in a form Postgres accepts', async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  await s.app.flusher.stop();
  // A user upsert's record, copied with a user id Postgres text cannot hold
  // (written straight into the stream: the HTTP edge may refuse such ids).
  t.equal((await s.call('POST', '/v1/users', { body: { id: 'template', name: 'T' } })).status, 201);
  const r = await sharedRedis(t);
  const stream = s.app.ctx.keys.tenant(0).stream;
  const fields = (await r.xrange(stream, '-', '+'))[0]![1];
  const crafted = fields.map((v, i) => (fields[i - 1] === 'u' ? 'nul\0user' : v));
  await r.xadd(stream, '*', ...crafted);
  // And one whose user id is too long for an index entry (program limit, not a data error).
  const long = randomBytes(6000).toString('hex');
  await r.xadd(stream, '*', ...fields.map((v, i) => (fields[i - 1] === 'u' ? long : v)));
  t.equal((await s.event('m', { user: { id: 'after' }, value: 1 })).status, 201);

  await s.drain();
  t.equal((await s.app.flusher.lag()).entries, 0);
  t.equal(await flushedTotal(s, 'after'), 1, 'the record after it is written');
  const listed = (await s.call('GET', '/admin/v1/dead-letters')).body;
  t.equal(listed.length, 2);
  const dl = listed.find((x: { sqlstate: string }) => x.sqlstate.startsWith('22'));
  t.match(dl, { record: { k: 'us', u: { base64: Buffer.from('nul\0user').toString('base64') } } });
  t.match(listed.find((x: { sqlstate: string }) => x.sqlstate.startsWith('54')), { record: { u: long } });

  // Nothing can fix this one: discard it.
  const unknown = '00000000-0000-0000-0000-00000000dead';
  const del = await s.call('DELETE', `/admin/v1/dead-letters?ids=${dl.id},${unknown}`);
  t.same(del.body.deleted, [{ id: dl.id }]);
  t.same(del.body.issues.map((i: { id: string }) => i.id), [unknown]);
  t.match(await ready(s), { flusher: 'degraded', deadLetters: 1 });
  t.equal((await s.call('GET', '/admin/v1/dead-letters?limit=0')).status, 422);
});

t.test('dead letters belong to their tenant', async (t) => {
  const s = await startServer(t);
  t.equal((await s.call('POST', '/admin/v1/tenants', { body: [{ customerId: 'acme', name: 'Acme' }] })).status, 201);
  await s.metrics(['m'], 'acme');
  await s.metrics(['m']);
  await s.app.ctx.db.query(`ALTER TABLE events ADD CONSTRAINT no_poison CHECK (user_id <> 'poison')`);
  t.equal((await s.event('m', { user: { id: 'poison' }, value: 1 }, { tenant: 'acme' })).status, 201);
  await s.drain();
  t.equal((await s.call('GET', '/admin/v1/dead-letters', { tenant: 'acme' })).body.length, 1);
  t.same((await s.call('GET', '/admin/v1/dead-letters')).body, [], "the default tenant sees none of acme's");
  const [dl] = (await s.call('GET', '/admin/v1/dead-letters', { tenant: 'acme' })).body;
  t.equal((await s.call('POST', `/admin/v1/dead-letters/${dl.id}/replay`)).status, 404, 'nor replays them');
  t.match(await ready(s), { flusher: 'degraded', deadLetters: 1 }, '/readyz counts every tenant');
});

t.test("erasing a user removes their dead letters too", async (t) => {
  const s = await startServer(t);
  await s.metrics(['m']);
  await s.app.ctx.db.query(`ALTER TABLE events ADD CONSTRAINT refuse_two CHECK (user_id NOT IN ('poison', 'other'))`);
  for (const u of ['poison', 'other']) t.equal((await s.event('m', { user: { id: u }, value: 2 })).status, 201);
  await s.drain();
  t.equal((await s.call('GET', '/admin/v1/dead-letters')).body.length, 2);
  t.equal((await s.call('DELETE', '/admin/v1/users/poison')).status, 200);
  const left = (await s.call('GET', '/admin/v1/dead-letters')).body;
  t.equal(left.length, 1, "only the other user's is left");
  t.notOk(JSON.stringify(left).includes('poison'));
});
