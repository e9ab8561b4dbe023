import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { RequestContext, HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KubeApi } from './kube-api.js';
import { isUnreachable, KubeApiError } from './kube-api-error.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, PooledKubeConfig } from './pooled-kube-config.js';
import type { ResourceInfo } from './resource-path.js';

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

describe('PooledKubeConfig: a request that gets no answer', () => {
  // The fault itself: a server that takes the connection and never says a word (a hung peer, a dead connection
  // without a reset). Without a timeout the request, and the controller pass awaiting it, would wait for ever.
  const silent = net.createServer((socket) => socket.on('error', () => undefined));
  const open: net.Socket[] = [];
  silent.on('connection', (s) => open.push(s));
  afterAll(() => {
    for (const kc of configs.splice(0)) kc.destroy();
    for (const s of open) s.destroy();
    silent.close();
  });

  it('is given up after requestTimeoutMs, as an unreachable KubeApiError that says so', async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const kc = new PooledKubeConfig({ requestTimeoutMs: 300 });
    kc.loadFromString(kubeconfig({ server: `http://127.0.0.1:${port}`, insecure: true }));
    configs.push(kc);
    const deployments: ResourceInfo = { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true };

    const listed = await new KubeApi(kc).list(deployments).catch((err: unknown) => err);
    expect(listed).toBeInstanceOf(KubeApiError);
    expect(isUnreachable(listed)).toBe(true);
    expect((listed as Error).message).toBe(
      'list deployments.apps cluster-wide failed: no answer within the request timeout',
    );
    // What is not a KubeApi call (client-node's Metrics, Health without a signal of its own) gets the timeout too.
    expect((await kc.applyToFetchOptions({})).signal).toBeInstanceOf(AbortSignal);
  });

  it('defaults to the API server’s own limit for a request', () => {
    expect(new PooledKubeConfig().requestTimeoutMs).toBe(DEFAULT_REQUEST_TIMEOUT_MS);
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(60_000);
  });
});
