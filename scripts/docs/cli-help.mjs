// Prints the built CLI's `--help` for each command path given as a JSON array in argv[2] (`[[], ["get"], …]`), as
// a JSON array of texts in the same order: every help of a level of the command tree from one process, as
// scripts/docs/cli-reference.ts asks for them. Its stdout is a pipe, so the help is laid out as a user's pipe gets
// it (80 columns, no colour). Spawning the CLI once per command took 18 s for 28 commands on an idle machine.
import { main } from '../../packages/cli/dist/main.js';

/** A write as the CLI's process output makes it: one line at least. */
const line = (t) => (t.endsWith('\n') ? t : `${t}\n`);

const paths = JSON.parse(process.argv[2] ?? '[]');
const texts = [];
for (const command of paths) {
  let out = '';
  let err = '';
  const code = await main([...command, '--help'], {
    out: (t) => {
      out += line(t);
    },
    err: (t) => {
      err += line(t);
    },
    readStdin: async () => '',
    now: () => new Date(),
    env: process.env,
  });
  if (code !== 0) {
    process.stderr.write(`flotilla ${[...command, '--help'].join(' ')}: exit ${code}: ${err.trim()}\n`);
    process.exit(1);
  }
  texts.push(out.trimEnd());
}
process.stdout.write(JSON.stringify(texts));
