import { loadPooledKubeConfig, type PooledKubeConfig } from '@flotilla/kube-client';

/**
 * The host's kubeconfig from a file, or the in-cluster service account when no file is given. Its requests share
 * kept-alive connections (one TLS handshake per credential, not one per write).
 */
export function loadKubeConfig(path: string | undefined): PooledKubeConfig {
  return loadPooledKubeConfig(path, 'in-cluster');
}
