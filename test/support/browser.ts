import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

/** Debian's `chromium` (scripts/test installs it), or the program CHROMIUM_PATH names. */
export function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  if (named) return named;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    // A missing browser fails the test that needs it: the dashboard is never left untested by a skip.
    throw new Error(
      'chromium not found: install it (apt-get install -y chromium; scripts/test does) or set CHROMIUM_PATH',
    );
  }
}

/** Headless Chromium through playwright-core; the caller closes it in its teardown. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // In a container as root Chromium's sandbox cannot start; the pages it opens are our own.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
