import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardFile } from './dashboard.js';

describe('dashboardFile', () => {
  const pkg = join('/', 'pkg');
  it.each([
    ['/dashboard', join(pkg, 'static', 'index.html')],
    ['/dashboard/', join(pkg, 'static', 'index.html')],
    ['/dashboard/js/app.js', join(pkg, 'dist', 'app.js')],
    ['/dashboard/js/app.js.map', join(pkg, 'dist', 'app.js.map')],
    ['/dashboard/js/dashboard.css', join(pkg, 'dist', 'dashboard.css')],
    // Nothing outside the page, its style and its bundle: no other module, no way up, no other file.
    ['/dashboard/js/index.js', undefined],
    ['/dashboard/js/', undefined],
    ['/dashboard/js/../package.json', undefined],
    ['/dashboard/static/../package.json', undefined],
    ['/dashboard/static/%2e%2e/%2e%2e/secret.css', undefined],
    ['/dashboard/static/..%2f..%2fpackage.json', undefined],
    ['/dashboard/static/notes.txt', undefined],
    ['/dashboard/static/index.html', undefined],
    ['/dashboard/api', undefined],
  ])('%s → %s', (path, file) => expect(dashboardFile(path, pkg)).toBe(file));
});
