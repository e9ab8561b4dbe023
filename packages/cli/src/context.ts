import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { connectBus, isCredentialsRefused, natsServersAndAuth, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { parseManifests } from '@flotilla/api';

/** Everything a command touches outside itself, so that tests can run commands in-process. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  now(): Date;
  env: Record<string, string | undefined>;
}

export const processIo: CliIo = {
  out: (t) => void process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  err: (t) => void process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  now: () => new Date(),
  env: process.env,
};

/** A command's failure: printed to stderr, exit code 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface Session {
  bus: Bus;
  client: GatewayClient;
}

/** Connects to the bus named by NATS_URL / FLOTILLA_PREFIX. */
export async function openSession(io: CliIo): Promise<Session> {
  const bus = await connectBus({
    url: io.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    user: io.env.NATS_USER,
    password: io.env.NATS_PASSWORD,
    token: io.env.NATS_TOKEN,
    prefix: io.env.FLOTILLA_PREFIX ?? 'flotilla',
    name: 'flotilla-cli',
    // The command line never administers JetStream: on an open server it makes what is missing, no more.
    administer: false,
  }).catch((err: Error) => {
    if (isCredentialsRefused(err))
      throw new CliError(
        `${err.message}\nNATS refused the credentials: check NATS_USER and NATS_PASSWORD (or NATS_TOKEN), ` +
          'or the user and password in NATS_URL',
      );
    throw new CliError(`${err.message}\nIs the suite running? Start it with: scripts/up`);
  });
  return { bus, client: new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, caller: apiCallerOf(io.env) }) };
}

/**
 * The name the command line calls the gateway by: its NATS user's without the prefix when the user is one of the
 * shipped authorization's (`flotilla-cli-read` calls as `cli-read`, the one name that user may publish under), else
 * the client's default (`cli`): a server with one user for everything, or none, lets any name through.
 */
export function apiCallerOf(env: NodeJS.ProcessEnv): string | undefined {
  const user = env.NATS_USER ?? (env.NATS_URL ? natsServersAndAuth(env.NATS_URL).user : undefined);
  const prefix = `${env.FLOTILLA_PREFIX ?? 'flotilla'}-`;
  return user?.startsWith(prefix) ? user.slice(prefix.length) : undefined;
}

/** Runs `fn` with a session opened on its first use (if any) and closed afterwards. */
export async function withLazySession<T>(io: CliIo, fn: (session: () => Promise<Session>) => Promise<T>): Promise<T> {
  let opened: Promise<Session> | undefined;
  try {
    return await fn(() => (opened ??= openSession(io)));
  } finally {
    if (opened) await (await opened.catch(() => undefined))?.bus.close();
  }
}

export function withSession<T>(io: CliIo, fn: (s: Session) => Promise<T>): Promise<T> {
  return withLazySession(io, async (session) => fn(await session()));
}

/** Reads `-f` arguments: files, directories (their .yaml/.yml/.json files, sorted) or `-` for stdin. */
export async function readManifests(io: CliIo, paths: string[]): Promise<Array<{ source: string; doc: unknown }>> {
  const out: Array<{ source: string; doc: unknown }> = [];
  for (const p of paths) {
    if (p === '-') {
      for (const doc of parseManifests(await io.readStdin())) out.push({ source: 'stdin', doc });
      continue;
    }
    const s = await stat(p).catch(() => {
      throw new CliError(`error: the path "${p}" does not exist`);
    });
    const files = s.isDirectory()
      ? (await readdir(p))
          .filter((f) => /\.(ya?ml|json)$/.test(f))
          .sort()
          .map((f) => join(p, f))
      : [p];
    for (const f of files) {
      let docs: unknown[];
      try {
        docs = parseManifests(await readFile(f, 'utf8'));
      } catch (err) {
        throw new CliError(`error: ${f}: ${(err as Error).message}`);
      }
      for (const doc of docs) out.push({ source: f, doc });
    }
  }
  return out;
}
