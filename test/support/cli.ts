import { main, type CliIo } from '@flotilla/cli';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the real CLI in-process against the given environment, capturing what it prints. */
export async function flotilla(env: Record<string, string>, args: string[], stdin = ''): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => {
      out += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: (t) => {
      err += t.endsWith('\n') ? t : `${t}\n`;
    },
    readStdin: async () => stdin,
    now: () => new Date(),
    env,
  };
  const code = await main(args, io);
  return { code, out, err };
}
