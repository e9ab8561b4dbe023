import http from 'node:http';
import https from 'node:https';
import { RequestContext, HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PooledKubeConfig } from './pooled-kube-config.js';

// Inline credentials: what changes them is what must give another connection pool. The values are opaque to the
// agents (no connection is opened here).
const kubeconfig = (opts: { server?: string; user?: string; proxy?: string; insecure?: boolean } = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'm1',
        cluster: {
          server: opts.server ?? 'https://127.0.0.1:6443',
          'certificate-authority-data': Buffer.from('ca').toString('base64'),
          ...(opts.proxy ? { 'proxy-url': opts.proxy } : {}),
          ...(opts.insecure ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [
      {
        name: 'agent',
        user: {
          'client-certificate-data': Buffer.from(`cert of ${opts.user ?? 'agent'}`).toString('base64'),
          'client-key-data': Buffer.from(`key of ${opts.user ?? 'agent'}`).toString('base64'),
        },
      },
    ],
    contexts: [{ name: 'm1', context: { cluster: 'm1', user: 'agent' } }],
    'current-context': 'm1',
  });

const configs: PooledKubeConfig[] = [];
function load(opts?: Parameters<typeof kubeconfig>[0]): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  kc.loadFromString(kubeconfig(opts));
  configs.push(kc);
  return kc;
}
async function agentOfApiRequest(kc: PooledKubeConfig) {
  const ctx = new RequestContext('https://127.0.0.1:6443/version', HttpMethod.GET);
  await kc.applySecurityAuthentication(ctx);
  return ctx.getAgent();
}

describe('PooledKubeConfig: requests with the same credentials share kept-alive connections', () => {
  afterEach(() => {
    for (const kc of configs.splice(0)) kc.destroy();
  });

  it('gives every request, API call or watch, the one keep-alive agent made for its TLS options', async () => {
    const kc = load();
    const first = await agentOfApiRequest(kc);
    expect(first).toBeInstanceOf(https.Agent);
    expect((first as https.Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    expect(await agentOfApiRequest(kc)).toBe(first);
    // Watch, Health and Metrics take their options from applyToFetchOptions
    expect((await kc.applyToFetchOptions({})).agent).toBe(first);
    // the credentials are still the kubeconfig's
    expect((first as https.Agent & { options: https.AgentOptions }).options.cert?.toString()).toBe('cert of agent');
  });

  it('keeps requests with other credentials on other connections (a rotated certificate is not sent on old ones)', async () => {
    const kc = load();
    const before = await agentOfApiRequest(kc);
    kc.loadFromString(kubeconfig({ user: 'rotated' }));
    const after = await agentOfApiRequest(kc);
    expect(after).not.toBe(before);
    expect((after as https.Agent & { options: https.AgentOptions }).options.cert?.toString()).toBe('cert of rotated');
  });

  it('pools plain http agents too, and leaves a proxy agent as client-node makes it', async () => {
    const plain = load({ server: 'http://127.0.0.1:8080', insecure: true });
    const a = (await plain.applyToFetchOptions({})).agent;
    expect(a).toBeInstanceOf(http.Agent);
    expect((await plain.applyToFetchOptions({})).agent).toBe(a);

    const proxied = load({ proxy: 'http://127.0.0.1:3128' });
    const p1 = await agentOfApiRequest(proxied);
    const p2 = await agentOfApiRequest(proxied);
    expect(p1?.constructor).not.toBe(https.Agent);
    expect(p2).not.toBe(p1);
  });
});
