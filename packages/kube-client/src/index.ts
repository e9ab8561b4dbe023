export { type KubeConfigFallback, loadPooledKubeConfig, PooledKubeConfig } from './pooled-kube-config.js';
