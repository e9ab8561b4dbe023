/**
 * docs/cli.md's command reference, generated from the CLI's own help: `flotilla --help` and every command's and
 * subcommand's `--help`, as the built CLI prints them to a pipe (80 columns, no colour), so the reference is what a
 * user sees.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The built CLI could not print its help (not built, or it failed). */
export class CliHelpError extends Error {
  constructor(
    readonly command: readonly string[],
    detail: string,
  ) {
    super(`flotilla ${[...command, '--help'].join(' ')}: ${detail} (run \`pnpm run build\` first)`);
    this.name = 'CliHelpError';
  }
}

export const isCliHelpError = (err: unknown): err is CliHelpError => err instanceof CliHelpError;

/**
 * The help texts of `commands`, in their order, from one process (scripts/docs/cli-help.mjs): a node process per
 * command took longer than the docs test's time on a busy machine.
 */
function helps(root: string, commands: ReadonlyArray<readonly string[]>): string[] {
  const run = spawnSync(process.execPath, [join(root, 'scripts/docs/cli-help.mjs'), JSON.stringify(commands)], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const first = commands[0] ?? [];
  if (run.error) throw new CliHelpError(first, run.error.message);
  if (run.status !== 0) throw new CliHelpError(first, `exit ${run.status}: ${run.stderr.trim()}`);
  return JSON.parse(run.stdout) as string[];
}

/** The subcommands a help text lists under "Commands:" (commander's layout), without `help`. */
export function listedCommands(helpText: string): string[] {
  const lines = helpText.split('\n');
  const start = lines.indexOf('Commands:');
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const m = /^ {2}([a-z][a-z-]*)/.exec(line);
    if (m && m[1] !== 'help') names.push(m[1] as string);
  }
  return names;
}

/** Every command path, depth first in the order the help lists them, with its help text. */
export function cliHelpTexts(root: string): Array<{ command: string[]; text: string }> {
  // One process per level of the command tree, then the tree walked depth first.
  const texts = new Map<string, string>();
  let level: string[][] = [[]];
  while (level.length > 0) {
    const got = helps(root, level);
    const next: string[][] = [];
    level.forEach((command, i) => {
      const text = got[i] as string;
      texts.set(command.join(' '), text);
      for (const sub of listedCommands(text)) next.push([...command, sub]);
    });
    level = next;
  }
  const out: Array<{ command: string[]; text: string }> = [];
  const walk = (command: string[]): void => {
    const text = texts.get(command.join(' ')) as string;
    out.push({ command, text });
    for (const sub of listedCommands(text)) walk([...command, sub]);
  };
  walk([]);
  return out;
}

/** The Markdown of docs/cli.md's generated block. */
export function renderCliReference(root: string): string {
  return cliHelpTexts(root)
    .map(
      ({ command, text }) => `### \`flotilla${command.map((c) => ` ${c}`).join('')}\`\n\n\`\`\`text\n${text}\n\`\`\``,
    )
    .join('\n\n');
}
