// The Docker engine of scripts/docker-env, for the tests that build and run Flotilla's images. A missing engine fails
// them (it never skips them): scripts/test starts the engine and builds the base images before vitest runs.
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './suite.js';

const run = promisify(execFile);

/** The image every service runs from, as docker-compose.yml names it. */
export const FLOTILLA_IMAGE = 'flotilla:local';

export class DockerEngineMissingError extends Error {
  override name = 'DockerEngineMissingError';
}

export function isDockerEngineMissing(err: unknown): err is DockerEngineMissingError {
  return err instanceof DockerEngineMissingError;
}

/** DOCKER_HOST as set, or the socket of scripts/docker-env's engine. */
export function dockerHost(): string {
  if (process.env.DOCKER_HOST) return process.env.DOCKER_HOST;
  return execFileSync('bash', [join(ROOT, 'scripts', 'docker-env'), 'host'], { encoding: 'utf8' }).trim();
}

/** Runs the docker CLI against dockerHost(), in the repository's root. */
export async function docker(
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return run('docker', args, {
    cwd: ROOT,
    env: { ...process.env, DOCKER_HOST: dockerHost(), ...opts.env },
    timeout: opts.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Sets DOCKER_HOST for libraries in this process (testcontainers) and checks that the engine answers. */
export async function requireDockerEngine(): Promise<string> {
  const host = dockerHost();
  process.env.DOCKER_HOST = host;
  try {
    const { stdout } = await docker(['version', '--format', '{{.Server.Version}}'], { timeoutMs: 20_000 });
    return stdout.trim();
  } catch (err) {
    throw new DockerEngineMissingError(
      `no Docker engine answers at ${host}: run \`bash scripts/docker-env up\` (as root; scripts/test does so)`,
      { cause: err },
    );
  }
}

/**
 * scripts/image: `docker build` of the root Dockerfile with its OCI labels, on the host's network as docker-compose.yml
 * builds it (the engine has no default bridge). Cached layers make a second build of unchanged sources take seconds.
 */
export async function buildFlotillaImage(): Promise<{ seconds: number; sizeBytes: number }> {
  const started = performance.now();
  await run('bash', [join(ROOT, 'scripts', 'image'), FLOTILLA_IMAGE], {
    cwd: ROOT,
    env: { ...process.env, DOCKER_HOST: dockerHost() },
    timeout: 1_200_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const { stdout } = await docker(['image', 'inspect', '--format', '{{.Size}}', FLOTILLA_IMAGE]);
  return { seconds, sizeBytes: Number(stdout.trim()) };
}
