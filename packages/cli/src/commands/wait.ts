import { resolveKind, type Condition } from '@flotilla/api';
import { isNotFound } from '@flotilla/client';
import { CliError, type CliIo, type Session } from '../context.js';
import { parseDuration } from '../duration.js';

/** `--for=condition=Ready`, `--for=condition=Ready=False`, `--for=delete` or `--for=create` (as kubectl 1.31). */
export function parseWaitFor(
  text: string,
): { type: 'condition'; condition: string; status: string } | { type: 'delete' } | { type: 'create' } {
  if (text === 'delete' || text === 'create') return { type: text };
  const m = /^condition=([^=]+)(?:=(.+))?$/.exec(text);
  if (!m)
    throw new CliError(
      `error: unrecognized condition: "${text}"; use --for=condition=NAME[=VALUE], --for=create or --for=delete`,
    );
  return { type: 'condition', condition: m[1]!, status: (m[2] ?? 'True').toLowerCase() };
}

export interface WaitOptions {
  /** KIND/NAME. */
  target: string;
  /** `--for`: `condition=NAME[=VALUE]`, `create` or `delete`. */
  for: string;
  /** `--timeout`: a duration; WAIT_DEFAULTS.timeout when not given. */
  timeout?: string;
  namespace?: string;
}

export const WAIT_DEFAULTS = { timeout: '30s' } as const;

export async function waitCommand(io: CliIo, s: Session, o: WaitOptions): Promise<number> {
  const { target, namespace } = o;
  const want = parseWaitFor(o.for);
  const timeoutMs = parseDuration(o.timeout ?? WAIT_DEFAULTS.timeout, '--timeout');
  const slash = target.indexOf('/');
  if (slash <= 0) throw new CliError(`error: "${target}" is not KIND/NAME`);
  const info = resolveKind(target.slice(0, slash));
  const name = target.slice(slash + 1);
  const ns = info.namespaced ? (namespace ?? 'default') : undefined;
  const deadline = Date.now() + timeoutMs;
  const shown = `${info.kind.toLowerCase()}/${name}`;
  for (let first = true; ; first = false) {
    try {
      const o = await s.client.get(info.kind, name, ns);
      if (want.type === 'create') {
        io.out(`${shown} condition met`);
        return 0;
      }
      if (want.type === 'condition') {
        const conds = ((o.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
        if (conds.some((c) => c.type === want.condition && c.status.toLowerCase() === want.status)) {
          io.out(`${shown} condition met`);
          return 0;
        }
      }
    } catch (err) {
      // As kubectl wait: a condition on a missing object is NotFound at once (the error names it), not a timeout;
      // a delete of an object that is not there is already done; a creation is waited for (an object another
      // controller makes, such as a ResourceBinding, comes a moment after the apply).
      if (!isNotFound(err) || want.type === 'condition') throw err;
      if (want.type === 'delete') {
        io.out(first ? `${shown} does not exist: nothing to wait for` : `${shown} deleted`);
        return 0;
      }
    }
    if (Date.now() >= deadline) {
      io.err(`error: timed out waiting for the condition on ${info.plural}/${name}`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
