import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@flotilla/runtime';
import { memberAgentConfigSchema } from './config.js';

describe('member-agent configuration', () => {
  it('defaults to the sim driver ticking every second', () => {
    const c = loadConfig(memberAgentConfigSchema, {});
    expect(c).toMatchObject({
      MEMBER_DRIVER: 'sim',
      SIM_TICK_MS: 1000,
      SIM_HPA_SYNC_MS: 15_000,
      SIM_HPA_DOWNSCALE_WINDOW_MS: 300_000,
    });
  });

  it.each([
    [{ MEMBER_DRIVER: 'docker' }, 'MEMBER_DRIVER: expected one of sim, kube, got "docker"'],
    [{ SIM_TICK_MS: 'fast' }, 'SIM_TICK_MS: expected an integer >= 10, got "fast"'],
    [{ SIM_TICK_MS: '0' }, 'SIM_TICK_MS: expected an integer >= 10, got "0"'],
    [{ MEMBER_DRIVER: 'kube' }, 'KUBE_CLUSTER_NAME: required when MEMBER_DRIVER=kube'],
  ])('%j is a configuration error', (env, message) => {
    expect(() => loadConfig(memberAgentConfigSchema, env)).toThrow(ConfigError);
    expect(() => loadConfig(memberAgentConfigSchema, env)).toThrow(message);
  });

  it('accepts the kube driver with a cluster name', () => {
    expect(loadConfig(memberAgentConfigSchema, { MEMBER_DRIVER: 'kube', KUBE_CLUSTER_NAME: 'prod-1' })).toMatchObject({
      MEMBER_DRIVER: 'kube',
      KUBE_CLUSTER_NAME: 'prod-1',
    });
  });
});
