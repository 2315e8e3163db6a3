// Bundles the console (console/src) into dist/console: index.html, and
// content-hashed script and stylesheet under assets/ (each with a .gz beside
// it for the server to send). Fails the build past the size budget.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The whole console, gzipped, must stay under this. */
export const BUDGET_BYTES = 150 * 1024;

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist/console');
const assets = path.join(out, 'assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: [path.join(root, 'console/src/main.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  outdir: assets,
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const files = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
const script = files.find((f) => f.endsWith('.js'));
const style = files.find((f) => f.endsWith('.css'));
// No inline script or style anywhere: the Content-Security-Policy forbids both.
writeFileSync(
  path.join(out, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Laurel console</title>
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body><div id="app"></div><noscript>The Laurel console needs JavaScript.</noscript></body>
</html>
`,
);

let total = 0;
const sizes = [];
for (const file of [...files.map((f) => path.join(assets, f)), path.join(out, 'index.html')]) {
  const gz = gzipSync(readFileSync(file), { level: 9 });
  if (!file.endsWith('.html')) writeFileSync(`${file}.gz`, gz);
  total += gz.length;
  sizes.push(`${path.basename(file)} ${(gz.length / 1024).toFixed(1)} KB`);
}
writeFileSync(path.join(out, 'size.json'), JSON.stringify({ gzipBytes: total, budgetBytes: BUDGET_BYTES }) + '\n');
if (total > BUDGET_BYTES) {
  console.error(`console: ${(total / 1024).toFixed(1)} KB gzipped, over the ${BUDGET_BYTES / 1024} KB budget (${sizes.join(', ')})`);
  process.exit(1);
}
if (process.env.CONSOLE_BUILD_VERBOSE) console.log(`console: ${(total / 1024).toFixed(1)} KB gzipped (${sizes.join(', ')})`);
