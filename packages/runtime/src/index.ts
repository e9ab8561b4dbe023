export { ManualClock, systemClock, type Clock } from './clock.js';
export {
  baseConfigSchema,
  loadConfig,
  LOG_LEVELS,
  type BaseConfig,
  type ConfigOf,
  type ConfigSchema,
  type EnvSource,
  type LogLevel,
} from './config.js';
export {
  envBool,
  envEnum,
  envInt,
  envPort,
  envRequired,
  envString,
  envHostPortList,
  envUrl,
  envUrlList,
  type HostPort,
  type EnvIntOptions,
  type EnvStringOptions,
} from './env-fields.js';
export {
  ConfigError,
  formatConfigIssue,
  InvalidJobIdError,
  isConfigError,
  isStaleFencingToken,
  NotLeaderError,
  StaleFencingTokenError,
  isRedisCredentialsRefused,
  RedisUnavailableError,
  type ConfigIssue,
} from './errors.js';
export { retryAtStartup, type StartupRetryOptions } from './startup-retry.js';
export { startHttpServer, type HttpServerHandle, type StartHttpServerOptions } from './http.js';
export {
  LeaderElector,
  LeadershipLostError,
  runWhileLeader,
  SELF_DEMOTE_FRACTION,
  type DemotionReason,
  type Fencing,
  type LeaderElectorOptions,
  type RunWhileLeaderOptions,
} from './leader.js';
export {
  createLogger,
  REDACT_PATHS,
  STALLED_OUTPUT_GIVE_UP_MS,
  stdoutDestination,
  type CreateLoggerOptions,
  type Logger,
} from './logger.js';
export { displayValue, isSecretName, redactConfig, redactUrl } from './redact.js';
export {
  closeRedis,
  connectRedis,
  connectRedisAtStartup,
  createRedis,
  describeRedis,
  redisSentinelFromEnv,
  type CreateRedisOptions,
  type RedisSentinelOptions,
} from './redis.js';
export {
  runService,
  ServiceHost,
  type RunServiceOptions,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceHostOptions,
  type ServiceState,
  type StopFunction,
} from './service.js';
export { startLeaderWork, type LeaderWorkHandle, type LeaderWorkOptions } from './leader-work.js';
export {
  leaderServiceStart,
  runLeaderService,
  type LeaderServiceDefinition,
  type ReplicaResources,
} from './leader-service.js';
export { applyHeapGrowth } from './heap.js';
export { leaderGauge } from './leader-metrics.js';
export { perRegistry } from './per-registry.js';
export { ReadinessGates } from './readiness-gates.js';
export {
  gateOpen,
  GracefulGate,
  type GateFailureState,
  type GateSink,
  type GracefulGateOptions,
} from './graceful-gate.js';
export { connectionGate, type ConnectionListener } from './connection-gate.js';
export { watchProvisioning, type ProvisioningWatchOptions } from './provisioning-watch.js';
export { aclSetUserArgs, redisAclRules, type RedisAclRule } from './redis-acl.js';
