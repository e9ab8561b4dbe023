import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** scripts/kube-env, four folders above this file both as source (src/kube) and as build output (dist/kube). */
export const KUBE_ENV_SCRIPT = fileURLToPath(new URL('../../../../scripts/kube-env', import.meta.url));

/** Raised when the Kubernetes programs are not built (or a part of them is missing). */
export class KubeBinariesMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeBinariesMissingError';
  }
}

/**
 * The folder holding the built kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd, kwok and
 * metrics-server. The cache rule (FLOTILLA_KUBE_CACHE, the pinned versions) lives in one place, scripts/kube-env,
 * so this asks it (`scripts/kube-env path`) instead of repeating it. FLOTILLA_KUBE_BIN names a folder of programs
 * to use instead (built elsewhere, or while a build is still running).
 */
export function kubeBinDir(): string {
  const override = process.env.FLOTILLA_KUBE_BIN;
  if (override) {
    if (!existsSync(join(override, 'kube-apiserver')))
      throw new KubeBinariesMissingError(`FLOTILLA_KUBE_BIN=${override} has no kube-apiserver`);
    return override;
  }
  let out: string;
  try {
    out = execFileSync('bash', [KUBE_ENV_SCRIPT, 'path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new KubeBinariesMissingError(
      'the Kubernetes programs are not built: run `bash scripts/kube-env build` (once per machine; the first build ' +
        `takes a while)${stderr ? ` — ${stderr}` : ''}`,
    );
  }
  const dir = out.trim();
  if (!existsSync(join(dir, 'kube-apiserver')))
    throw new KubeBinariesMissingError(`${dir} has no kube-apiserver: run \`bash scripts/kube-env build\``);
  return dir;
}

/** Path of one program in `binDir`; throws naming the build command when the build did not produce it. */
export function kubeProgram(binDir: string, program: string): string {
  const path = join(binDir, program);
  if (!existsSync(path))
    throw new KubeBinariesMissingError(
      `${program} is missing from ${binDir}: run \`bash scripts/kube-env build\` (see its log for why ${program} did not build)`,
    );
  return path;
}

/**
 * A CRD of another project that `scripts/kube-env build` fetched from that project's Go module into the `crds` folder
 * beside the programs (the Prometheus Operator's `monitoring.coreos.com_prometheusrules.yaml`); throws naming the
 * build command when it is not there.
 */
export function kubeCrdFile(file: string): string {
  const path = join(kubeBinDir(), '..', 'crds', file);
  if (!existsSync(path))
    throw new KubeBinariesMissingError(`${path} is missing: run \`bash scripts/kube-env build\` (it fetches ${file})`);
  return path;
}
