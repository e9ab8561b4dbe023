// `bench/run --compare REF [--rounds N] BENCH...`: builds REF in a worktree outside the repository, then runs the
// named benches alternately on REF and on this checkout (HEAD, as built), N rounds each (default 2), in one sitting,
// and prints each figure's median on both beside the ratio HEAD/REF. Alternating spreads the machine's drift (other
// work, thermal state) over both builds instead of charging it to one.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { compareFigures, formatComparison, medianFigures, parseFigures, type Figures } from './figures.js';

const root = resolve(import.meta.dirname, '..', '..');
const args = process.argv.slice(2);
const ref = args.shift();
let rounds = 2;
const names: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else names.push(args[i]!);
}
if (!ref || names.length === 0 || !Number.isInteger(rounds) || rounds < 1) {
  console.error(
    'usage: bench/run --compare REF [--rounds N] BENCH...   (e.g. bench/run --compare main~3 scheduler-e2e)',
  );
  process.exit(2);
}
for (const n of names)
  if (!existsSync(join(root, 'bench', `${n}.ts`))) {
    console.error(`bench/run --compare: no bench named ${n} (bench/${n}.ts)`);
    process.exit(2);
  }

const git = (...a: string[]) => execFileSync('git', ['-C', root, ...a], { encoding: 'utf8' }).trim();
const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
const cache = process.env.FLOTILLA_BENCH_CACHE ?? join(homedir(), '.cache', 'flotilla', 'bench-compare');
const refDir = join(cache, sha);
const log = (m: string) => console.error(`[compare] ${m}`);

if (!existsSync(join(refDir, '.built'))) {
  mkdirSync(cache, { recursive: true });
  if (!existsSync(refDir)) git('worktree', 'add', '--detach', refDir, sha);
  log(`building ${ref} (${sha.slice(0, 10)}) in ${refDir}`);
  const sh = (cmd: string) => {
    const r = spawnSync('bash', ['-c', cmd], { cwd: refDir, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
    if (r.status !== 0) throw new Error(`building ${ref} failed: ${cmd} exited ${r.status}`);
  };
  sh('pnpm install --frozen-lockfile && pnpm run build && touch .built');
}

function runOnce(dir: string, name: string): Figures {
  const r = spawnSync(process.execPath, ['--expose-gc', '--conditions=source', '--import', 'tsx', `bench/${name}.ts`], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(r.stdout);
  if (r.status !== 0) throw new Error(`bench ${name} failed in ${dir === root ? 'HEAD' : ref} (exit ${r.status})`);
  return parseFigures(r.stdout);
}

for (const name of names) {
  const runs: Record<'ref' | 'head', Figures[]> = { ref: [], head: [] };
  for (let round = 1; round <= rounds; round++) {
    // REF first in odd rounds, HEAD first in even ones.
    const order: Array<'ref' | 'head'> = round % 2 ? ['ref', 'head'] : ['head', 'ref'];
    for (const which of order) {
      log(`${name}: round ${round} of ${rounds} on ${which === 'ref' ? ref : 'HEAD'}`);
      runs[which].push(runOnce(which === 'ref' ? refDir : root, name));
    }
  }
  console.log(`\n${name}: medians of ${rounds} runs each, ${ref} (${sha.slice(0, 10)}) against HEAD`);
  console.log(formatComparison(compareFigures(medianFigures(runs.ref), medianFigures(runs.head)), ref));
}
