import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

/** The host's kubeconfig from a file, or the in-cluster service account when no file is given. */
export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}
