export { KUBE_ENV_SCRIPT, KubeBinariesMissingError, kubeBinDir, kubeCrdFile, kubeProgram } from './bin-dir.js';
export {
  KUBE_CLUSTER_DEFAULTS,
  type KubeCluster,
  type KubeClusterOptions,
  type KubeClusterRecord,
  type KubeClusterStartOptions,
  readKubeClusterRecord,
  recordedProcess,
  recordedProcesses,
  setRecordedProcess,
  startKubeCluster,
  validateKubeClusterOptions,
  writeKubeClusterRecord,
} from './cluster.js';
export { type CpuUsageRule, cpuUsageObject, selectorToCel } from './cpu-usage.js';
export { isAlive, isRecordedAlive, ManagedProcess, type RecordedProcess, stopPid } from './processes.js';
export {
  REAL_NODE_NAME,
  type PodNetwork,
  type RealNodeImage,
  cleanupRealNode,
  importImageArchive,
  realNodeImage,
} from './real-node.js';
