export { type KubeConfigFallback, loadPooledKubeConfig, PooledKubeConfig } from './pooled-kube-config.js';
export { HttpMethod, RawObjectApi, type RawRequest } from './raw-object-api.js';
