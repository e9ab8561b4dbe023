// The browser's one module: src/web/app.ts and what it imports (the view models, @flotilla/api's quantities, uPlot),
// bundled by esbuild into dist/app.js after `tsc -b` has type-checked and built them; src/web/dashboard.css with
// uPlot's stylesheet into dist/dashboard.css. Offline: nothing is fetched.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [join(dir, 'src', 'web', 'app.ts')],
  outfile: join(dir, 'dist', 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});
await build({
  entryPoints: [join(dir, 'src', 'web', 'dashboard.css')],
  outfile: join(dir, 'dist', 'dashboard.css'),
  bundle: true,
  minify: true,
  logLevel: 'warning',
});
