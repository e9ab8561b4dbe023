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
async function dispatcherOfRequest(kc: PooledKubeConfig, url = 'https://127.0.0.1:6443/version') {
  const ctx = new RequestContext(url, HttpMethod.GET);
  await kc.applySecurityAuthentication(ctx);
  return ctx.getDispatcher();
}
/** The TLS options client-node reads from the kubeconfig for a request (what a dispatcher connects with). */
function connectOptions(kc: PooledKubeConfig) {
  const options = kc.createDispatcherOptions(kc.getCurrentCluster(), {
    cert: kc.getCurrentUser()?.certData ? Buffer.from(kc.getCurrentUser()!.certData!, 'base64') : undefined,
  });
  return options.type === 'agent' ? options.connect : undefined;
}

describe('PooledKubeConfig: requests with the same credentials share kept-alive connections', () => {
  afterEach(() => {
    for (const kc of configs.splice(0)) kc.destroy();
  });

  it('gives every request, API call or watch, the one keep-alive dispatcher made for its TLS options', async () => {
    const kc = load();
    const first = await dispatcherOfRequest(kc);
    expect(first?.constructor.name).toBe('Agent');
    expect(await dispatcherOfRequest(kc)).toBe(first);
    // Watch, Health and Metrics get theirs through applySecurityAuthentication as well, whatever the path
    expect(await dispatcherOfRequest(kc, 'https://127.0.0.1:6443/readyz')).toBe(first);
    // the credentials are still the kubeconfig's, kept alive
    expect(connectOptions(kc)).toMatchObject({ keepAlive: true });
    expect(String(connectOptions(kc)?.cert)).toBe('cert of agent');
  });

  it('keeps requests with other credentials on other connections (a rotated certificate is not sent on old ones)', async () => {
    const kc = load();
    const before = await dispatcherOfRequest(kc);
    kc.loadFromString(kubeconfig({ user: 'rotated' }));
    const after = await dispatcherOfRequest(kc);
    expect(after?.constructor.name).toBe('Agent');
    expect(after).not.toBe(before);
    expect(await dispatcherOfRequest(kc)).toBe(after);
  });

  it('pools a plain http server too, and leaves a proxy dispatcher as client-node makes it', async () => {
    const plain = load({ server: 'http://127.0.0.1:8080', insecure: true });
    const a = await dispatcherOfRequest(plain, 'http://127.0.0.1:8080/version');
    expect(a?.constructor.name).toBe('Agent');
    expect(await dispatcherOfRequest(plain, 'http://127.0.0.1:8080/version')).toBe(a);

    const proxied = load({ proxy: 'http://127.0.0.1:3128' });
    const p1 = await dispatcherOfRequest(proxied);
    const p2 = await dispatcherOfRequest(proxied);
    expect(p1?.constructor.name).toBe('ProxyAgent');
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
    // Every API client's request gets the timeout, not only KubeApi's.
    const ctx = new RequestContext(`http://127.0.0.1:${port}/version`, HttpMethod.GET);
    await kc.applySecurityAuthentication(ctx);
    expect(ctx.getSignal()).toBeInstanceOf(AbortSignal);
  });

  it('defaults to the API server’s own limit for a request', () => {
    expect(new PooledKubeConfig().requestTimeoutMs).toBe(DEFAULT_REQUEST_TIMEOUT_MS);
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(60_000);
  });
});
