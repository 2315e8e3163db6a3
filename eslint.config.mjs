// Lint: the recommended rules of ESLint and typescript-eslint, syntax only (the
// type-aware set is several times slower on two cores, and tsc already checks
// types). No style rule: formatting is left as it is.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // tsc resolves every name, the console's too (console/jsconfig.json).
      'no-undef': 'off',
      // `_` marks what is left out on purpose (`const { secret: _, ...shown } = row`).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests and benches read any JSON a server answers.
    files: ['test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests load `laurel/client` by its package name, as users do.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
