import t from 'tap';
import fc from 'fast-check';
import { CopyRows } from '../src/store/copy';

/** The fields of COPY's text format read back as Postgres reads them (null for \N). */
function readBack(text: string): (string | null)[][] {
  const unescape = (f: string) => (f === '\\N' ? null : f.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c));
  return text.split('\n').slice(0, -1).map((line) => line.split('\t').map(unescape));
}

t.test('every string comes back as written, whatever it holds', async (t) => {
  fc.assert(fc.property(fc.array(fc.array(fc.option(fc.string({ unit: 'binary' }), { nil: null }), { minLength: 1, maxLength: 5 }), { maxLength: 20 }), (rows) => {
    const out = new CopyRows(1);
    for (const r of rows) {
      for (const f of r) out.field(f);
      out.end();
    }
    t.same(readBack(out.bytes().toString('utf8')), rows);
  }), { numRuns: 300 });
});

t.test('a time is the UTC instant it was given, to the millisecond', async (t) => {
  // From 1970 to 2100, with the edges of days and years among them.
  const edges = [0, 86_399_999, 86_400_000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.UTC(2028, 1, 29, 12, 0, 0, 5)];
  fc.assert(fc.property(fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) })), (ms) => {
    const text = new CopyRows(1).time(ms).bytes().toString('ascii');
    t.match(text, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\+00$/);
    t.equal(Date.parse(text.replace(' ', 'T').replace('+00', 'Z')), ms);
  }), { numRuns: 500 });
});

t.test('ids, numbers and nulls are written as they are, rows and fields separated', async (t) => {
  const out = new CopyRows(1);
  out.word('0b9e2c1e-6a8f-4c55-9a55-61c3e8a4e2b0').field(12.5).word(null).end();
  out.field(-3).word('2026-11-27').field(null).end();
  t.equal(out.bytes().toString('ascii'), '0b9e2c1e-6a8f-4c55-9a55-61c3e8a4e2b0\t12.5\t\\N\n-3\t2026-11-27\t\\N\n');
});

t.test('rows larger than the first guess grow the buffer without losing any', async (t) => {
  const out = new CopyRows(1);
  const long = 'é'.repeat(5000);
  for (let i = 0; i < 3; i++) out.field(long).field(i).end();
  t.same(readBack(out.bytes().toString('utf8')), [0, 1, 2].map((i) => [long, String(i)]));
});
