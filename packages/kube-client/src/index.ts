export { type Backoff, backoffDelay } from './backoff.js';
export { type KubeInformerMetrics, kubeInformerMetrics } from './informer-metrics.js';
export {
  INFORMER_DEFAULTS,
  KubeInformer,
  type KubeInformerEvent,
  type KubeInformerOptions,
  type ListWatchClient,
  listWatchOf,
  namespacedName,
  type ReadinessSink,
} from './informer.js';
export {
  type DeleteOptions,
  FIELD_MANAGER,
  KubeApi,
  type ListOptions,
  type RawList,
  type RawObject,
  type WatchParams,
} from './kube-api.js';
export {
  describeKubeError,
  describeRequest,
  isAbortError,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isUnauthorized,
  isUnreachable,
  KubeApiError,
  type KubeRequest,
  KubeStatusCode,
  statusCodeOf,
  statusOf,
  toKubeApiError,
} from './kube-api-error.js';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type KubeConfigFallback,
  loadPooledKubeConfig,
  PooledKubeConfig,
  type PooledKubeConfigOptions,
} from './pooled-kube-config.js';
export { HttpMethod, RawObjectApi, type RawRequest } from './raw-object-api.js';
export { collectionPath, groupVersionPath, type ObjectName, objectPath, type ResourceInfo } from './resource-path.js';
export { type StableDigestOptions, stableDigest, stableJson } from './stable-json.js';
