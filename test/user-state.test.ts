import t from 'tap';
import fc from 'fast-check';
import { decodeState, encodeState, foldColumns, stateValues, StoredFields, streamVersion } from '../src/store/user-state';

// A user's stored hash must come back exactly, whatever its names and values
// hold (quotes, backslashes, control characters, any Unicode, a group's own
// delimiters), and a field that several groups name (records of one user in
// one batch, batches meeting in `recent`) reads at its newest version,
// whatever order the groups lie in.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '~', '"', '\\', '\n', '\u0000', '\u007f', 'é', '\ud800', '],['), maxLength: 8 }),
);
const version = fc.bigInt({ min: 1n, max: 10n ** 20n }).map(String);
const sorted = (m: Map<string, unknown>) => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

t.test('user state text: a round trip', async (t) => {
  fc.assert(fc.property(fc.array(fc.tuple(text, fc.option(text, { nil: null }), version), { maxLength: 12 }), (list) => {
    const stored: StoredFields = new Map();
    for (const [f, v, ver] of list) stored.set(f, [v, ver]);
    t.same(sorted(decodeState(encodeState(stored))), sorted(stored));
  }), { numRuns: 300 });
});

t.test('user state text: a field named by several groups reads at its newest version', async (t) => {
  const name = fc.constantFrom('m1', 'Sd', 'n', '],[');
  const group = fc.tuple(version, fc.array(fc.tuple(name, fc.option(text, { nil: null })), { maxLength: 4 }));
  fc.assert(fc.property(fc.uniqueArray(group, { selector: (g) => g[0], maxLength: 6 }), fc.boolean(), (groups, split) => {
    const newest = new Map<string, [string | null, string]>();
    for (const [ver, fields] of groups) {
      for (const [f, v] of fields) {
        const had = newest.get(f);
        if (!had || BigInt(had[1]) < BigInt(ver)) newest.set(f, [v, ver]);
      }
    }
    const columns = groups.map(([ver, fields]) => [ver, ...fields.flat()]);
    t.same(sorted(decodeState(JSON.stringify(columns))), sorted(newest));
    // The same groups spread over the row's two columns.
    const half = split ? columns.length >> 1 : 0;
    const values = new Map([...newest].filter(([, [v]]) => v !== null).map(([f, [v]]) => [f, v]));
    t.same(sorted(stateValues(JSON.stringify(columns.slice(half)), JSON.stringify(columns.slice(0, half)))), sorted(values));
  }), { numRuns: 300 });
});

t.test('user state text: a fold of several columns keeps each field once, at its newest version', async (t) => {
  const name = fc.constantFrom('m1', 'Sd', 'n', '],[', 'é');
  const group = fc.tuple(version, fc.uniqueArray(fc.tuple(name, fc.option(text, { nil: null })), { selector: (f) => f[0], maxLength: 4 }));
  fc.assert(fc.property(fc.uniqueArray(group, { selector: (g) => g[0], minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3 }), (groups, parts) => {
    const columns = groups.map(([ver, fields]) => [ver, ...fields.flat()]);
    // The groups dealt over one to three columns, each in its own order.
    const texts = Array.from({ length: parts }, (_, i) => JSON.stringify(columns.filter((_, j) => j % parts === i).reverse()));
    const folded = foldColumns(texts);
    const merged = decodeState(JSON.stringify(columns));
    t.same(sorted(decodeState(folded)), sorted(merged), 'the same fields at the same versions');
    const names = (JSON.parse(folded) as string[][]).flatMap((g) => g.filter((_, i) => i % 2 === 1));
    t.equal(names.length, merged.size, 'each field named once');
  }), { numRuns: 300 });
});

t.test('a stream id as a version: milliseconds times a million plus the sequence', async (t) => {
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 9n }), (ms, seq) => {
    t.equal(streamVersion(`${ms}-${seq}`), String(ms * 1_000_000n + seq));
    t.equal(streamVersion(String(ms)), String(ms * 1_000_000n), 'an id without a sequence is at sequence 0');
  }), { numRuns: 500 });
});
