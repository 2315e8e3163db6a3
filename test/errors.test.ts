import t from 'tap';
import { isUnavailable } from '../src/errors';

// What counts as "a backing store is unreachable" decides 503 (retry) versus 500.
t.test('store outages are recognised, other errors are not', async (t) => {
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  const coded = (code: string) => Object.assign(new Error('x'), { code });
  t.ok(isUnavailable(named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 0).')));
  t.ok(isUnavailable(new Error('Connection is closed.')));
  t.ok(isUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false")));
  t.ok(isUnavailable(new Error('LOADING Redis is loading the dataset in memory')));
  t.ok(isUnavailable(coded('ECONNREFUSED')));
  t.ok(isUnavailable(coded('57P01')), 'postgres admin shutdown');
  t.ok(isUnavailable(coded('08006')), 'postgres connection failure');
  t.ok(isUnavailable(new Error('Connection terminated unexpectedly')));
  t.notOk(isUnavailable(new Error('ERR syntax error')));
  t.notOk(isUnavailable(coded('23505')), 'a unique violation is a bug or a conflict, not an outage');
  t.notOk(isUnavailable('nope'));
});
