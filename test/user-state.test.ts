import t from 'tap';
import fc from 'fast-check';
import { decodeState, encodeState, StoredFields } from '../src/store/user-state';

// A user's stored hash must come back exactly, whatever its names and values
// hold (quotes, backslashes, control characters, any Unicode), and stay JSON
// that Postgres's user_state_field reads (so: what JSON.stringify writes).
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '~', '"', '\\', '\n', '\u0000', '\u007f', 'é', '\ud800', '],['), maxLength: 8 }),
);
const version = fc.bigInt({ min: 1n, max: 10n ** 20n }).map(String);
const fields = fc.array(fc.tuple(text, fc.option(text, { nil: null }), version), { maxLength: 12 });

t.test('user state text: round trip, and the JSON the groups are', async (t) => {
  fc.assert(fc.property(fields, (list) => {
    const stored: StoredFields = new Map();
    for (const [f, v, ver] of list) stored.set(f, [v, ver]);
    const encoded = encodeState(stored);
    const groups = new Map<string, (string | null)[]>();
    for (const [f, [v, ver]] of stored) groups.set(ver, [...(groups.get(ver) ?? [ver]), f, v]);
    const byAge = [...groups.values()].sort((a, b) => (BigInt(a[0]!) < BigInt(b[0]!) ? -1 : 1));
    t.equal(encoded, JSON.stringify(byAge));
    const sorted = (m: StoredFields) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));
    t.same(sorted(decodeState(encoded)), sorted(stored));
  }), { numRuns: 300 });
});
