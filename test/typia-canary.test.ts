import t from 'tap';
import typia, { tags } from 'typia';

// If the typia transform did not run at compile time, these calls throw
// ("no transform configured") instead of validating: the whole API's input
// checking would be gone. This file fails loudly in that case.
t.test('typia validation was compiled in', async (t) => {
  interface Probe {
    id: string & tags.MinLength<1>;
    n: number;
  }
  const validate = typia.createValidate<Probe>();
  t.equal(validate({ id: 'a', n: 1 }).success, true);
  const bad = validate({ id: '', n: 'x' });
  t.equal(bad.success, false);
  t.ok(!bad.success && bad.errors.some((e) => e.path === '$input.n'), 'names the failing field');
});
