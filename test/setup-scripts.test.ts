// scripts/lib.sh's ensure_binary, run by bash with stand-ins for apt-get and id on PATH: what a fresh Debian
// machine gets from `scripts/up` (install when root or in CI, otherwise say what to install); and its
// stop_started_servers, the cleanup of what scripts/test and scripts/up started.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const lib = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'lib.sh');
let dir: string;

/** Runs `ensure_binary fake-server fake-package` with a fake `id -u` of `uid` and an apt-get that installs the binary. */
function ensure(uid: number, ci: boolean) {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-setup-'));
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  script('id', `echo ${uid}`);
  script(
    'apt-get',
    `echo "apt-get $*" >> "${dir}/apt.log"\n[ "$1" = install ] && printf '#!/bin/sh\\n' > "${dir}/fake-server" && chmod +x "${dir}/fake-server"\nexit 0`,
  );
  const run = spawnSync('bash', ['-c', `source "${lib}" && ensure_binary fake-server fake-package`], {
    env: { PATH: `${dir}:/usr/bin:/bin`, ...(ci ? { CI: 'true' } : {}) },
    encoding: 'utf8',
  });
  let apt = '';
  try {
    apt = readFileSync(join(dir, 'apt.log'), 'utf8');
  } catch {}
  return { status: run.status, stderr: run.stderr, apt };
}

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/lib.sh ensure_binary', () => {
  it('as root, installs the missing program from Debian (updating the package lists once)', () => {
    const r = ensure(0, false);
    expect(r.status).toBe(0);
    expect(r.apt.trim().split('\n')).toEqual(['apt-get update -qq', 'apt-get install -y -qq fake-package']);
    expect(r.stderr).toContain('installing fake-package from Debian');
  });

  it('in CI, installs it too', () => {
    expect(ensure(1000, true).status).toBe(0);
  });

  it('as another user outside CI, installs nothing and says what to install', () => {
    const r = ensure(1000, false);
    expect(r.status).toBe(1);
    expect(r.apt).toBe('');
    expect(r.stderr).toContain('Install it: apt-get install fake-package');
  });
});

describe('scripts/lib.sh stop_started_servers', () => {
  it("stops the servers a run started also when the list names one that is gone (a killed run's)", () => {
    dir = mkdtempSync(join(tmpdir(), 'flotilla-setup-'));
    // Under set -e, as in the EXIT traps of scripts/test and scripts/up: a gone pid first, then a live server.
    const run = spawnSync(
      'bash',
      [
        '-c',
        `set -euo pipefail; source "${lib}"; DATA="${dir}"
         sh -c 'exit 0' & gone=$!; wait "$gone"
         sleep 60 & live=$!
         printf '%s\\n%s\\n' "$gone" "$live" > "$DATA/started-pids"
         stop_started_servers
         if kill -0 "$live" 2>/dev/null; then echo "still running"; else echo stopped; fi
         [ -e "$DATA/started-pids" ] && echo "list kept" || echo "list removed"`,
      ],
      { encoding: 'utf8' },
    );
    expect([run.status, run.stdout.trim().split('\n')]).toEqual([0, ['stopped', 'list removed']]);
  });
});
