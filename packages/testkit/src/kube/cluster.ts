import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort, isAddressInUse } from '@flotilla/ports';
import { kubeBinDir, kubeProgram } from './bin-dir.js';
import { type CpuUsageRule, cpuUsageObject, validateCpuUsageRule } from './cpu-usage.js';
import { writeKubeconfig } from './kubeconfig.js';
import { type CertFiles, Pki, validateSubject } from './pki.js';
import { ManagedProcess, type RecordedProcess } from './processes.js';
import { processStartTime } from '../reaper.js';
import {
  REAL_NODE_NAME,
  type RealNodeLayout,
  checkRealNodePrerequisites,
  cleanupRealNode,
  createRealNodeCgroup,
  importImageArchive,
  joinRuntimeCgroup,
  realNodeImage,
  realNodeLayout,
  realNodePath,
  choosePodNetwork,
  createPodBridge,
  type PodNetwork,
  writeRealNodeConfig,
} from './real-node.js';

export interface KubeClusterOptions {
  /** Names the cluster (kubeconfig context, node names, working folder): a DNS label. */
  name: string;
  /** Nodes played by kwok (default 1). */
  nodes?: number;
  /** Allocatable CPU of each node (default '4'). */
  cpu?: string;
  /** Allocatable memory of each node (default '8Gi'). */
  memory?: string;
  /** Pods each node takes (default 110). */
  pods?: number;
  /** etcd + kube-apiserver only: a host cluster for CRDs and webhooks (default false). */
  controlPlaneOnly?: boolean;
  /** Run metrics-server behind the aggregation layer, so metrics.k8s.io answers (default false). */
  metrics?: boolean;
  /**
   * Adds one real node, `localhost`: the kubelet with a containerd of its own, which really runs the pods bound to it
   * (host networking only; images imported with importImage, never pulled). Default false.
   */
  realNode?: boolean;
  /**
   * With realNode: the node gets a pod network of its own (a bridge, Debian's CNI bridge and host-local plugins, a free
   * 10.244.X.0/24), so pods have addresses of their own and two replicas of one Deployment can share the node. The
   * API server then listens on every address (pods reach it at the network's gateway). Default false.
   */
  podNetwork?: boolean;
  /** Appended to kube-apiserver's arguments, e.g. --admission-control-config-file=… */
  extraApiServerArgs?: string[];
  /** Appended to kube-controller-manager's arguments, e.g. --horizontal-pod-autoscaler-sync-period=5s */
  extraControllerManagerArgs?: string[];
}

/** Options for scripts/kube-env and tests that need them; the public shape is KubeClusterOptions. */
export interface KubeClusterStartOptions extends KubeClusterOptions {
  /** Folder of the built programs (default: kubeBinDir()). */
  binDir?: string;
  /** Working folder (default: a new folder under os.tmpdir()); created if missing, removed by stop(). */
  dir?: string;
  /** Leave the processes running when this node process exits (scripts/kube-env up). Default false. */
  outliveParent?: boolean;
}

export interface KubeCluster {
  readonly name: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Admin kubeconfig (system:masters). */
  readonly kubeconfigPath: string;
  /** The cluster CA: signs client certificates (userKubeconfig) and serving certificates (webhooks). */
  readonly caCertPath: string;
  readonly caKeyPath: string;
  /** The cluster's working folder: certificates, kubeconfigs, logs (`<program>.log`), pid files, etcd data. */
  readonly dir: string;
  /** Milliseconds each start-up step took (etcd, apiserver, nodesReady, …), for the README's figures. */
  readonly timings: Readonly<Record<string, number>>;
  /** Runs the built kubectl as the admin (or with `kubeconfig`, e.g. one of userKubeconfig's), `input` on stdin. */
  kubectl(
    args: string[],
    opts?: { input?: string; kubeconfig?: string },
  ): Promise<{ stdout: string; stderr: string; code: number }>;
  /** A kubeconfig whose client certificate says CN=name, O=each group, signed by the cluster CA (for RBAC tests). */
  userKubeconfig(user: { name: string; groups?: string[] }): Promise<string>;
  /**
   * Sets the CPU usage of the pods `selector` matches in `namespace`, now and for pods created later, per container
   * (a one-container pod uses `milliCpu`). It reaches metrics.k8s.io where metrics-server runs.
   */
  setPodCpuUsage(opts: { namespace: string; selector: string; milliCpu: number }): Promise<void>;
  /**
   * Writes a key outside the API server's prefix (so etcd's revision moves past every resourceVersion handed out so
   * far) and compacts etcd's history up to it, as kube-apiserver does every 5 minutes: a watch that resumes from an
   * older resourceVersion and is served by etcd (no watch cache for its resource) gets 410 Gone. Returns the revision.
   */
  compactEtcd(): Promise<number>;
  /**
   * Resolves once every CRD (or each one named, e.g. `prometheusrules.monitoring.coreos.com`) is Established. Polled:
   * `kubectl wait --for=condition=Established` fails outright ("<nil> is of the type <nil>") when it reads a CRD the
   * API server has not given any condition yet, which a busy machine makes likely.
   */
  waitCrdsEstablished(names?: string[]): Promise<void>;
  /** Imports an image archive (`docker save` format) into the real node's containerd (realNode clusters only). */
  importImage(archivePath: string): Promise<void>;
  /** The real node's pod network (podNetwork clusters only): pods reach the node, and its API server, at `gateway`. */
  readonly podNetwork: PodNetwork | undefined;
  /** Stops kube-apiserver: the member is unreachable; etcd and its data stay. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port with the same data, and waits until it is ready. */
  startApiServer(): Promise<void>;
  /** Stops every process it started and removes its folder. */
  stop(): Promise<void>;
}

export const KUBE_CLUSTER_DEFAULTS = { nodes: 1, cpu: '4', memory: '8Gi', pods: 110 } as const;

/** Annotation that hands a Node to kwok; the nodes of the cluster carry it, so kwok plays exactly those. */
const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/16';
const KUBERNETES_SERVICE_IP = '10.96.0.1';
const READY_TIMEOUT_MS = 90_000;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUANTITY = /^\d+(\.\d+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** Every invalid field at once, each named by its path. */
export function validateKubeClusterOptions(opts: KubeClusterOptions): void {
  const errors: string[] = [];
  if (typeof opts.name !== 'string' || !DNS_LABEL.test(opts.name) || opts.name.length > 40)
    errors.push(`name: ${JSON.stringify(opts.name)} is not a DNS label of at most 40 characters (a-z, 0-9, -)`);
  if (opts.nodes !== undefined && (!Number.isInteger(opts.nodes) || opts.nodes < 0 || opts.nodes > 50))
    errors.push(`nodes: must be a whole number from 0 to 50, got ${opts.nodes}`);
  if (opts.pods !== undefined && (!Number.isInteger(opts.pods) || opts.pods < 1))
    errors.push(`pods: must be a whole number ≥ 1, got ${opts.pods}`);
  for (const field of ['cpu', 'memory'] as const) {
    const v = opts[field];
    if (v !== undefined && (typeof v !== 'string' || !QUANTITY.test(v)))
      errors.push(
        `${field}: ${JSON.stringify(v)} is not a Kubernetes quantity (e.g. ${field === 'cpu' ? "'4' or '500m'" : "'8Gi'"})`,
      );
  }
  if (opts.controlPlaneOnly && opts.metrics)
    errors.push('metrics: metrics-server needs nodes to scrape, which a controlPlaneOnly cluster has none of');
  for (const field of ['extraApiServerArgs', 'extraControllerManagerArgs'] as const) {
    const args = opts[field];
    if (args === undefined) continue;
    if (!Array.isArray(args)) errors.push(`${field}: must be a list of --flags, got ${JSON.stringify(args)}`);
    else
      for (const [i, a] of args.entries())
        if (typeof a !== 'string' || !a.startsWith('--'))
          errors.push(`${field}[${i}]: must be a --flag, got ${JSON.stringify(a)}`);
  }
  if (opts.podNetwork && !opts.realNode)
    errors.push('podNetwork: only a real node has pods that need a network (set realNode too)');
  if (opts.controlPlaneOnly && opts.realNode)
    errors.push('realNode: a controlPlaneOnly cluster runs no scheduler or controllers to give the node pods');
  if (opts.controlPlaneOnly && opts.extraControllerManagerArgs?.length)
    errors.push('extraControllerManagerArgs: a controlPlaneOnly cluster runs no kube-controller-manager');
  if (errors.length) throw new Error(`invalid kube cluster options: ${errors.join('; ')}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface CrdStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

interface ClusterPki {
  ca: CertFiles;
  frontProxyCa: CertFiles;
  apiServer: CertFiles;
  admin: CertFiles;
  controllerManager: CertFiles;
  scheduler: CertFiles;
  frontProxyClient: CertFiles;
  kwokServing: CertFiles;
  metricsServing: CertFiles;
  serviceAccount: { keyPath: string; publicKeyPath: string };
  /** realNode: the API server's identity towards the kubelet, and the kubelet's towards the API server. */
  kubeletClient?: CertFiles;
  node?: CertFiles;
}

/** `podGateway`: the address pods reach the API server at (a podNetwork cluster's), named in its certificate. */
async function createPki(pki: Pki, name: string, realNode: boolean, podGateway?: string): Promise<ClusterPki> {
  const [ca, frontProxyCa, serviceAccount] = await Promise.all([
    pki.createCa('ca', `flotilla-${name}-ca`),
    pki.createCa('front-proxy-ca', `flotilla-${name}-front-proxy-ca`),
    pki.createKeyPair('service-account'),
  ]);
  const [apiServer, admin, controllerManager, scheduler, frontProxyClient, kwokServing, metricsServing] =
    await Promise.all([
      pki.issue(
        'apiserver',
        ca,
        { commonName: 'kube-apiserver' },
        {
          usage: 'server',
          altNames: [
            '127.0.0.1',
            ...(podGateway ? [podGateway] : []),
            KUBERNETES_SERVICE_IP,
            'localhost',
            'kubernetes',
            'kubernetes.default',
            'kubernetes.default.svc',
            'kubernetes.default.svc.cluster.local',
          ],
        },
      ),
      pki.issue('admin', ca, { commonName: 'flotilla-admin', organizations: ['system:masters'] }, { usage: 'client' }),
      pki.issue('controller-manager', ca, { commonName: 'system:kube-controller-manager' }, { usage: 'client' }),
      pki.issue('scheduler', ca, { commonName: 'system:kube-scheduler' }, { usage: 'client' }),
      pki.issue('front-proxy-client', frontProxyCa, { commonName: 'front-proxy-client' }, { usage: 'client' }),
      pki.issue('kwok-serving', ca, { commonName: 'kwok' }, { usage: 'server', altNames: ['127.0.0.1', 'localhost'] }),
      pki.issue(
        'metrics-server-serving',
        ca,
        { commonName: 'metrics-server' },
        { usage: 'server', altNames: ['127.0.0.1', 'localhost', 'metrics-server.kube-system.svc'] },
      ),
    ]);
  const [kubeletClient, node] = realNode
    ? await Promise.all([
        pki.issue(
          'apiserver-kubelet-client',
          ca,
          { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'] },
          { usage: 'client' },
        ),
        // The Node authorizer's identity for the node: it may read and write what is bound to it, and no more.
        pki.issue(
          'kubelet',
          ca,
          { commonName: `system:node:${REAL_NODE_NAME}`, organizations: ['system:nodes'] },
          { usage: 'client' },
        ),
      ])
    : [];
  return {
    ca,
    frontProxyCa,
    apiServer,
    admin,
    controllerManager,
    scheduler,
    frontProxyClient,
    kwokServing,
    metricsServing,
    serviceAccount,
    kubeletClient,
    node,
  };
}

/** What scripts/kube-env keeps of a running cluster (`<dir>/cluster.json`), to report and stop it later. */
export interface KubeClusterRecord {
  name: string;
  server: string;
  kubeconfigPath: string;
  dir: string;
  pids: Record<string, number>;
  /**
   * Each recorded pid's start time (`processStartTime`), so that a later `down` spares a process that took over the
   * number of one that has gone. Absent in records written before it was kept: the pids alone are trusted then.
   */
  starts?: Record<string, string>;
  timings: Record<string, number>;
  /** A real node's cgroup and containerd socket (`down` cleans it up, `import` imports into it). */
  realNode?: { cgroup: string; containerdSocket: string };
  /** The real node's pod network (`down` removes its bridge, named after the cgroup). */
  podNetwork?: PodNetwork;
  /**
   * Each program's command line, so that a later `scripts/kube-env start NAME` (another process) can start the API
   * server again as it was, with its extra arguments, and restart the controller-manager and scheduler.
   */
  commands?: Record<string, { program: string; args: string[] }>;
}

class RunningKubeCluster implements KubeCluster {
  readonly server: string;
  readonly kubeconfigPath: string;
  readonly caCertPath: string;
  readonly caKeyPath: string;
  readonly timings: Record<string, number> = {};
  private readonly processes = new Map<string, ManagedProcess>();
  private readonly usageRules: CpuUsageRule[] = [];
  private realNode: RealNodeLayout | undefined;
  private userCount = 0;
  private stopped = false;

  constructor(
    readonly name: string,
    readonly dir: string,
    private readonly binDir: string,
    private readonly pki: ClusterPki,
    readonly ports: {
      etcdClient: number;
      etcdPeer: number;
      apiServer: number;
      kwok: number;
      metrics: number;
      kubelet: number;
      kubeletHealthz: number;
    },
    private readonly opts: KubeClusterStartOptions,
    /** The real node's cgroup (realNode clusters), chosen before the pod network named after it. */
    private readonly nodeCgroup?: string,
    readonly podNetwork: PodNetwork | undefined = undefined,
  ) {
    this.server = `https://127.0.0.1:${ports.apiServer}`;
    this.kubeconfigPath = join(dir, 'admin.kubeconfig');
    this.caCertPath = pki.ca.certPath;
    this.caKeyPath = pki.ca.keyPath;
  }

  private program(name: string): string {
    return kubeProgram(this.binDir, name);
  }

  private process(name: string, program: string, args: string[], env?: NodeJS.ProcessEnv): ManagedProcess {
    const p = new ManagedProcess({ name, program, args, dir: this.dir, outliveParent: this.opts.outliveParent, env });
    this.processes.set(name, p);
    return p;
  }

  private async timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.timings[step] = Math.round(performance.now() - started);
    }
  }

  /** Waits until `probe` says yes, failing early (with the log) when `proc` exits. */
  private async waitFor(what: string, proc: ManagedProcess | undefined, probe: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let lastErr: unknown;
    for (;;) {
      try {
        if (await probe()) return;
      } catch (err) {
        lastErr = err;
      }
      if (proc?.exitDescription)
        throw new Error(
          `${proc.name} of cluster ${this.name} ${proc.exitDescription} before ${what}:\n${proc.logTail()}`,
        );
      if (Date.now() > deadline)
        throw new Error(
          `cluster ${this.name}: timed out after ${READY_TIMEOUT_MS} ms waiting for ${what}` +
            (lastErr ? ` (last error: ${(lastErr as Error).message})` : '') +
            (proc ? `\n${proc.name} log:\n${proc.logTail()}` : ''),
        );
      await sleep(100);
    }
  }

  /** One request to the API server as the admin (node's https with the cluster's client certificate). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port: this.ports.apiServer,
          method,
          path,
          ca: readFileSync(this.pki.ca.certPath),
          cert: readFileSync(this.pki.admin.certPath),
          key: readFileSync(this.pki.admin.keyPath),
          headers: payload ? { 'content-type': 'application/json' } : {},
          timeout: 5000,
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            data += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  private async apiOk(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await this.api(method, path, body);
    if (res.status < 200 || res.status >= 300)
      throw new Error(`cluster ${this.name}: ${method} ${path} answered ${res.status}: ${res.body.slice(0, 500)}`);
    return res.body ? JSON.parse(res.body) : undefined;
  }

  async startEtcd(): Promise<void> {
    const { etcdClient, etcdPeer } = this.ports;
    const etcd = this.process('etcd', this.program('etcd'), [
      '--name=default',
      `--data-dir=${join(this.dir, 'etcd-data')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
      // Test data: no fsync (much faster on shared disks; a machine crash loses the cluster, which tests recreate).
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ]);
    await this.timed('etcd', async () => {
      await etcd.start();
      await this.waitFor('etcd answered /health', etcd, async () => {
        const res = await fetch(`http://127.0.0.1:${etcdClient}/health`);
        return res.ok && ((await res.json()) as { health?: string }).health === 'true';
      });
    });
  }

  private apiServerArgs(): string[] {
    const p = this.pki;
    return [
      '--advertise-address=127.0.0.1',
      // With a pod network, pods reach the API server at the network's gateway, an address of the node's bridge.
      `--bind-address=${this.podNetwork ? '0.0.0.0' : '127.0.0.1'}`,
      `--secure-port=${this.ports.apiServer}`,
      `--etcd-servers=http://127.0.0.1:${this.ports.etcdClient}`,
      `--cert-dir=${join(this.dir, 'apiserver-certs')}`,
      `--tls-cert-file=${p.apiServer.certPath}`,
      `--tls-private-key-file=${p.apiServer.keyPath}`,
      `--client-ca-file=${p.ca.certPath}`,
      `--service-account-key-file=${p.serviceAccount.publicKeyPath}`,
      `--service-account-signing-key-file=${p.serviceAccount.keyPath}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      '--authorization-mode=Node,RBAC',
      '--allow-privileged=true',
      // The aggregation layer (metrics-server's APIService): the API server proxies as front-proxy-client.
      `--requestheader-client-ca-file=${p.frontProxyCa.certPath}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-username-headers=X-Remote-User',
      `--proxy-client-cert-file=${p.frontProxyClient.certPath}`,
      `--proxy-client-key-file=${p.frontProxyClient.keyPath}`,
      '--profiling=false',
      ...(p.kubeletClient
        ? [
            `--kubelet-client-certificate=${p.kubeletClient.certPath}`,
            `--kubelet-client-key=${p.kubeletClient.keyPath}`,
            // The real node is `localhost` (its InternalIP is not loopback): logs, exec and port-forward stay on it.
            '--kubelet-preferred-address-types=Hostname,InternalIP,ExternalIP',
            // No kube-proxy makes a Service's ClusterIP lead anywhere: the API server calls webhooks and aggregated
            // APIs at their endpoints (the pods' IPs) instead.
            '--enable-aggregator-routing=true',
          ]
        : []),
      ...(this.opts.extraApiServerArgs ?? []),
    ];
  }

  async startApiServer(): Promise<void> {
    this.assertNotStopped();
    const existing = this.processes.get('kube-apiserver');
    if (existing?.running) return;
    const apiServer = this.process('kube-apiserver', this.program('kube-apiserver'), this.apiServerArgs());
    await this.timed('apiServer', async () => {
      await apiServer.start();
      await this.waitFor('kube-apiserver answered /readyz', apiServer, async () => {
        const res = await this.api('GET', '/readyz');
        return res.status === 200;
      });
    });
    // After an outage, restart the controller-manager and the scheduler as a control-plane node does: there they lose
    // their leader lease and exit, and the kubelet starts them again. Left running, their watches only come back
    // after client-go's reconnect backoff (up to a minute of a Deployment change going unnoticed).
    if (existing) await this.restartControllers();
    await this.writeRecord();
  }

  private async restartControllers(): Promise<void> {
    const controllers = ['kube-controller-manager', 'kube-scheduler']
      .map((name) => this.processes.get(name))
      .filter((p): p is ManagedProcess => p !== undefined);
    await Promise.all(controllers.map((p) => p.stop()));
    await Promise.all(controllers.map((p) => p.start()));
  }

  /** One call to etcd's v3 JSON gateway (keys and values base64, revisions as strings). */
  private async etcd(path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`http://127.0.0.1:${this.ports.etcdClient}/v3/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok)
      throw new Error(`cluster ${this.name}: etcd /v3/${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as Record<string, unknown>;
  }

  async compactEtcd(): Promise<number> {
    this.assertNotStopped();
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    // Twice: a watch from resourceVersion R asks for R + 1 onwards, and etcd keeps the compaction revision itself, so
    // the revision compacted to must be beyond R + 1 for every R handed out before this call.
    let revision = 0;
    for (let i = 0; i < 2; i++) {
      const put = (await this.etcd('kv/put', {
        key: b64('/flotilla-testkit/compaction'),
        value: b64(`${new Date().toISOString()} ${i}`),
      })) as { header?: { revision?: string } };
      revision = Number(put.header?.revision);
      if (!Number.isInteger(revision) || revision < 1)
        throw new Error(`cluster ${this.name}: etcd's put answered no revision: ${JSON.stringify(put)}`);
    }
    await this.etcd('kv/compaction', { revision: String(revision), physical: true });
    return revision;
  }

  async stopApiServer(): Promise<void> {
    this.assertNotStopped();
    await this.processes.get('kube-apiserver')?.stop();
    await this.writeRecord();
  }

  async writeAdminKubeconfig(): Promise<void> {
    await writeKubeconfig(this.kubeconfigPath, {
      clusterName: this.name,
      server: this.server,
      caCertPath: this.pki.ca.certPath,
      userName: 'flotilla-admin',
      clientCertPath: this.pki.admin.certPath,
      clientKeyPath: this.pki.admin.keyPath,
    });
  }

  private async componentKubeconfig(component: string, cert: CertFiles): Promise<string> {
    return writeKubeconfig(join(this.dir, `${component}.kubeconfig`), {
      clusterName: this.name,
      server: this.server,
      caCertPath: this.pki.ca.certPath,
      userName: component,
      clientCertPath: cert.certPath,
      clientKeyPath: cert.keyPath,
    });
  }

  /** kube-controller-manager and kube-scheduler as kubeadm runs them, each with its own identity. */
  async startControllers(): Promise<void> {
    const p = this.pki;
    const [cmConfig, schedulerConfig] = await Promise.all([
      this.componentKubeconfig('controller-manager', p.controllerManager),
      this.componentKubeconfig('scheduler', p.scheduler),
    ]);
    const kubeconfigArgs = (path: string) => [
      `--kubeconfig=${path}`,
      `--authentication-kubeconfig=${path}`,
      `--authorization-kubeconfig=${path}`,
    ];
    const cm = this.process('kube-controller-manager', this.program('kube-controller-manager'), [
      ...kubeconfigArgs(cmConfig),
      // No HTTPS endpoint of its own: several clusters share the machine, and nothing here reads it.
      '--secure-port=0',
      '--leader-elect=false',
      '--use-service-account-credentials=true',
      `--service-account-private-key-file=${p.serviceAccount.keyPath}`,
      `--root-ca-file=${p.ca.certPath}`,
      `--cluster-signing-cert-file=${p.ca.certPath}`,
      `--cluster-signing-key-file=${p.ca.keyPath}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      '--kube-api-qps=100',
      '--kube-api-burst=200',
      ...(this.opts.extraControllerManagerArgs ?? []),
    ]);
    const scheduler = this.process('kube-scheduler', this.program('kube-scheduler'), [
      ...kubeconfigArgs(schedulerConfig),
      '--secure-port=0',
      '--leader-elect=false',
    ]);
    await this.timed('controllers', () => Promise.all([cm.start(), scheduler.start()]));
  }

  private nodeName(i: number): string {
    return `${this.name}-node-${i + 1}`;
  }

  /** Node objects of the requested capacity, handed to kwok by annotation. */
  async createNodes(): Promise<void> {
    const count = this.opts.nodes ?? KUBE_CLUSTER_DEFAULTS.nodes;
    const capacity = {
      cpu: this.opts.cpu ?? KUBE_CLUSTER_DEFAULTS.cpu,
      memory: this.opts.memory ?? KUBE_CLUSTER_DEFAULTS.memory,
      pods: String(this.opts.pods ?? KUBE_CLUSTER_DEFAULTS.pods),
    };
    await Promise.all(
      Array.from({ length: count }, (_, i) => {
        const name = this.nodeName(i);
        return this.apiOk('POST', '/api/v1/nodes', {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: {
            name,
            labels: {
              'kubernetes.io/hostname': name,
              'kubernetes.io/os': 'linux',
              'kubernetes.io/arch': 'amd64',
              type: 'kwok',
            },
            annotations: {
              [KWOK_NODE_ANNOTATION]: 'fake',
              'node.alpha.kubernetes.io/ttl': '0',
              // metrics-server scrapes this path on kwok's server instead of a kubelet's /metrics/resource.
              'metrics.k8s.io/resource-metrics-path': `/metrics/nodes/${name}/metrics/resource`,
            },
          },
          spec: {},
          status: { capacity, allocatable: capacity },
        });
      }),
    );
  }

  private kwokAssets(): string {
    return join(this.binDir, '..', 'kwok');
  }

  /** kwok plays the kubelets of the annotated nodes: node conditions and leases, pods Running and Ready, usage. */
  async startKwok(): Promise<void> {
    const assets = this.kwokAssets();
    const stages = [
      'stage/node/fast/node-initialize.yaml',
      'stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
      'stage/pod/fast/pod-ready.yaml',
      'stage/pod/fast/pod-complete.yaml',
      'stage/pod/fast/pod-delete.yaml',
    ];
    const missing = [
      ...stages,
      'crd/kwok.x-k8s.io_clusterresourceusages.yaml',
      'metrics/resource/metrics-resource.yaml',
    ]
      .map((f) => join(assets, f))
      .filter((f) => {
        try {
          readFileSync(f);
          return false;
        } catch {
          return true;
        }
      });
    if (missing.length)
      throw new Error(
        `kwok's stages and CRDs are missing (${missing.join(', ')}): run \`bash scripts/kube-env build\``,
      );
    // The ClusterResourceUsage CRD lets setPodCpuUsage change usage while kwok runs.
    await this.kubectlOk(['apply', '-f', join(assets, 'crd/kwok.x-k8s.io_clusterresourceusages.yaml')]);
    await this.waitCrdsEstablished(['clusterresourceusages.kwok.x-k8s.io']);
    await this.applyCpuUsage();
    const kwok = this.process('kwok', this.program('kwok'), [
      `--kubeconfig=${this.kubeconfigPath}`,
      ...stages.map((s) => `--config=${join(assets, s)}`),
      `--config=${join(assets, 'metrics/resource/metrics-resource.yaml')}`,
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
      '--node-ip=127.0.0.1',
      `--node-port=${this.ports.kwok}`,
      `--server-address=127.0.0.1:${this.ports.kwok}`,
      `--tls-cert-file=${this.pki.kwokServing.certPath}`,
      `--tls-private-key-file=${this.pki.kwokServing.keyPath}`,
      '--node-lease-duration-seconds=40',
      '--enable-crds=ClusterResourceUsage',
    ]);
    await this.timed('kwok', () => kwok.start());
  }

  async waitNodesReady(): Promise<void> {
    const count = this.opts.nodes ?? KUBE_CLUSTER_DEFAULTS.nodes;
    await this.timed('nodesReady', () =>
      this.waitFor(`${count} Ready nodes`, this.processes.get('kwok'), async () => {
        const list = (await this.apiOk('GET', '/api/v1/nodes')) as {
          items: { status?: { conditions?: { type: string; status: string }[] } }[];
        };
        const ready = list.items.filter((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ).length;
        return ready >= count;
      }),
    );
  }

  /**
   * The real node: containerd in a cgroup of the node's own (its shims and every pod's processes follow it there),
   * Kubernetes' pause imported as the sandbox image, then the kubelet; resolves once the Node is Ready.
   */
  async startRealNode(): Promise<void> {
    const node = this.pki.node;
    if (!node || !this.nodeCgroup) throw new Error(`cluster ${this.name}: started without realNode`);
    const layout = realNodeLayout(this.dir, this.nodeCgroup);
    const pause = realNodeImage(this.binDir, 'pause');
    await writeRealNodeConfig(layout, {
      ...(this.podNetwork ? { podNetwork: this.podNetwork } : {}),
      sandboxImage: pause.ref,
      kubelet: {
        caCertPath: this.pki.ca.certPath,
        port: this.ports.kubelet,
        healthzPort: this.ports.kubeletHealthz,
        maxPods: this.opts.pods ?? KUBE_CLUSTER_DEFAULTS.pods,
      },
    });
    await createRealNodeCgroup(layout.cgroup);
    this.realNode = layout;
    // Recorded (this.realNode) before it is made: whoever cleans the node up removes it.
    if (this.podNetwork) await createPodBridge(this.podNetwork);
    const env = { ...process.env, PATH: realNodePath() };
    await this.timed('containerd', async () => {
      const containerd = this.process('containerd', 'containerd', ['--config', layout.containerdConfig], env);
      await containerd.start();
      await this.writeRecord();
      // Before it starts anything: every shim and container it starts then stays in the node's cgroup.
      await joinRuntimeCgroup(layout.cgroup, containerd.pid as number);
      await this.waitFor('containerd to answer on its socket', containerd, async () => {
        await importImageArchive(layout.containerdSocket, pause.archivePath);
        return true;
      });
    });
    const kubeconfig = await writeKubeconfig(join(this.dir, 'kubelet.kubeconfig'), {
      clusterName: this.name,
      server: this.server,
      caCertPath: this.pki.ca.certPath,
      userName: `system:node:${REAL_NODE_NAME}`,
      clientCertPath: node.certPath,
      clientKeyPath: node.keyPath,
    });
    const kubelet = this.process(
      'kubelet',
      this.program('kubelet'),
      [
        `--config=${layout.kubeletConfig}`,
        `--kubeconfig=${kubeconfig}`,
        `--root-dir=${layout.kubeletRoot}`,
        `--hostname-override=${REAL_NODE_NAME}`,
      ],
      env,
    );
    await this.timed('realNodeReady', async () => {
      await kubelet.start();
      await this.writeRecord();
      await this.waitFor(`node ${REAL_NODE_NAME} to be Ready`, kubelet, async () => {
        const res = await this.api('GET', `/api/v1/nodes/${REAL_NODE_NAME}`);
        if (res.status !== 200) return false;
        const n = JSON.parse(res.body) as { status?: { conditions?: { type: string; status: string }[] } };
        return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      });
    });
  }

  async waitCrdsEstablished(names?: string[]): Promise<void> {
    this.assertNotStopped();
    const what = names ? `CRDs ${names.join(', ')}` : 'every CRD';
    await this.waitFor(`${what} to be Established`, undefined, async () => {
      const res = await this.kubectl(['get', 'crd', ...(names ?? []), '-o', 'json']);
      if (res.code !== 0) return false;
      const crds = (JSON.parse(res.stdout) as { items?: CrdStatus[] }).items ?? [JSON.parse(res.stdout) as CrdStatus];
      return crds.every((c) => c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True'));
    });
  }

  async importImage(archivePath: string): Promise<void> {
    this.assertNotStopped();
    if (!this.realNode) throw new Error(`cluster ${this.name} has no real node to import ${archivePath} into`);
    await importImageArchive(this.realNode.containerdSocket, archivePath);
  }

  /** metrics-server behind the aggregation layer: kube-apiserver reaches it through an ExternalName Service. */
  async startMetricsServer(): Promise<void> {
    const p = this.pki;
    const port = this.ports.metrics;
    const ms = this.process('metrics-server', this.program('metrics-server'), [
      `--kubeconfig=${this.kubeconfigPath}`,
      `--authentication-kubeconfig=${this.kubeconfigPath}`,
      `--authorization-kubeconfig=${this.kubeconfigPath}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--tls-cert-file=${p.metricsServing.certPath}`,
      `--tls-private-key-file=${p.metricsServing.keyPath}`,
      '--kubelet-preferred-address-types=InternalIP',
      '--kubelet-use-node-status-port',
      `--kubelet-certificate-authority=${p.ca.certPath}`,
      // Its shortest resolution; the scrape timeout must stay under 90 % of it.
      '--metric-resolution=10s',
      '--kubelet-request-timeout=5s',
    ]);
    await this.timed('metricsServer', async () => {
      await ms.start();
      const caBundle = (await readFile(p.ca.certPath)).toString('base64');
      await this.kubectlOk(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            {
              apiVersion: 'v1',
              kind: 'Service',
              metadata: { name: 'metrics-server', namespace: 'kube-system' },
              spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ name: 'https', port }] },
            },
            {
              apiVersion: 'apiregistration.k8s.io/v1',
              kind: 'APIService',
              metadata: { name: 'v1beta1.metrics.k8s.io' },
              spec: {
                group: 'metrics.k8s.io',
                version: 'v1beta1',
                groupPriorityMinimum: 100,
                versionPriority: 100,
                service: { name: 'metrics-server', namespace: 'kube-system', port },
                caBundle,
              },
            },
          ],
        }),
      });
      await this.waitFor('the metrics.k8s.io APIService to be Available', ms, async () => {
        const svc = (await this.apiOk('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io')) as {
          status?: { conditions?: { type: string; status: string }[] };
        };
        return svc.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;
      });
    });
  }

  /**
   * Writes the usage rules. A CRD just Established can still be missing from the API server's discovery for a moment
   * (kubectl then says "resource mapping not found ... ensure CRDs are installed first"; a clean-clone CI run saw it
   * on a busy machine): the apply is tried again until discovery serves the kind. Any other refusal fails at once.
   */
  private async applyCpuUsage(): Promise<void> {
    const input = JSON.stringify(cpuUsageObject(this.usageRules));
    let refusal: Error | undefined;
    await this.waitFor('the ClusterResourceUsage kind in discovery', undefined, async () => {
      const res = await this.kubectl(['apply', '-f', '-'], { input });
      if (res.code === 0) return true;
      if (/resource mapping not found|ensure CRDs are installed first/.test(res.stderr)) return false;
      refusal = new Error(`cluster ${this.name}: kubectl apply -f - failed (${res.code}): ${res.stderr.trim()}`);
      return true;
    });
    if (refusal) throw refusal;
  }

  async setPodCpuUsage(opts: { namespace: string; selector: string; milliCpu: number }): Promise<void> {
    this.assertNotStopped();
    if (this.opts.controlPlaneOnly)
      throw new Error(`cluster ${this.name} is controlPlaneOnly: it has no nodes, so no pod runs to use CPU`);
    const rule: CpuUsageRule = { namespace: opts.namespace, selector: opts.selector, milliCpu: opts.milliCpu };
    validateCpuUsageRule(rule);
    const same = this.usageRules.findIndex((r) => r.namespace === rule.namespace && r.selector === rule.selector);
    if (same >= 0) this.usageRules.splice(same, 1);
    this.usageRules.push(rule);
    await this.applyCpuUsage();
  }

  kubectl(
    args: string[],
    opts: { input?: string; kubeconfig?: string } = {},
  ): Promise<{ stdout: string; stderr: string; code: number }> {
    const kubeconfig = opts.kubeconfig ?? this.kubeconfigPath;
    return new Promise((resolve, reject) => {
      const child = spawn(this.program('kubectl'), [`--kubeconfig=${kubeconfig}`, ...args], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
      });
      child.once('error', reject);
      child.once('close', (code) => resolve({ stdout, stderr, code: code ?? 1 }));
      // kubectl may exit before it reads its input (a command that takes none, a refusal): the write then fails with
      // EPIPE, and its exit code and stderr are what tell the caller.
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input ?? '');
    });
  }

  private async kubectlOk(args: string[], opts: { input?: string } = {}): Promise<string> {
    const res = await this.kubectl(args, opts);
    if (res.code !== 0)
      throw new Error(`cluster ${this.name}: kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr.trim()}`);
    return res.stdout;
  }

  async userKubeconfig(user: { name: string; groups?: string[] }): Promise<string> {
    this.assertNotStopped();
    validateSubject({ commonName: user.name, organizations: user.groups }, 'user');
    const id = `user-${++this.userCount}`;
    const cert = await new Pki(this.dir).issue(
      id,
      this.pki.ca,
      { commonName: user.name, organizations: user.groups },
      { usage: 'client' },
    );
    return writeKubeconfig(join(this.dir, `${id}.kubeconfig`), {
      clusterName: this.name,
      server: this.server,
      caCertPath: this.pki.ca.certPath,
      userName: user.name,
      clientCertPath: cert.certPath,
      clientKeyPath: cert.keyPath,
    });
  }

  record(): KubeClusterRecord {
    const commands: Record<string, { program: string; args: string[] }> = {};
    const record: KubeClusterRecord = {
      name: this.name,
      server: this.server,
      kubeconfigPath: this.kubeconfigPath,
      dir: this.dir,
      pids: {},
      starts: {},
      timings: this.timings,
      commands,
      ...(this.realNode
        ? { realNode: { cgroup: this.realNode.cgroup, containerdSocket: this.realNode.containerdSocket } }
        : {}),
      ...(this.podNetwork ? { podNetwork: this.podNetwork } : {}),
    };
    for (const [name, p] of this.processes) {
      if (p.running && p.pid) setRecordedProcess(record, name, p.pid);
      commands[name] = { program: p.program, args: [...p.args] };
    }
    return record;
  }

  async writeRecord(): Promise<void> {
    if (this.stopped) return;
    await writeKubeClusterRecord(this.record());
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // The kubelet first (it would restart the pods), then everything of the node's cgroup, containerd included.
    await this.processes.get('kubelet')?.stop();
    // Reported after the rest is stopped: a node that cannot be cleaned up must not leave the control plane running.
    const nodeCleanup = this.realNode
      ? await cleanupRealNode(this.realNode).then(
          () => undefined,
          (err) => err,
        )
      : undefined;
    await this.processes.get('containerd')?.stop();
    const order = ['metrics-server', 'kwok', 'kube-scheduler', 'kube-controller-manager'];
    await Promise.all(order.map((n) => this.processes.get(n)?.stop()));
    await this.processes.get('kube-apiserver')?.stop();
    await this.processes.get('etcd')?.stop();
    if (nodeCleanup) throw nodeCleanup;
    await rm(this.dir, { recursive: true, force: true });
  }

  private assertNotStopped(): void {
    if (this.stopped) throw new Error(`cluster ${this.name} was stopped`);
  }
}

/**
 * Starts one real Kubernetes control plane on loopback ports: etcd, kube-apiserver (HTTPS, certificates made here)
 * and, unless `controlPlaneOnly`, kube-controller-manager, kube-scheduler and kwok playing the nodes' kubelets; with
 * `metrics`, metrics-server behind the aggregation layer; with `realNode`, a real kubelet and containerd (node
 * `localhost`). Resolves once the API server is ready and every node is Ready. On failure everything started is
 * stopped again.
 */
export async function startKubeCluster(opts: KubeClusterStartOptions): Promise<KubeCluster> {
  // Each program binds its port a moment after the port was picked free (freeTcpPort): a process running beside it
  // (another test's server, an outgoing connection given that port as its own) can take it in between, and the
  // program then exits with "address already in use". The cluster starts again on new ports, as startOnFreePort does.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startKubeClusterOnce(opts);
    } catch (err) {
      if (attempt >= PORT_ATTEMPTS || !isAddressInUse(err)) throw err;
    }
  }
}

/** How many times startKubeCluster tries when a port it picked was taken before a program bound it. */
const PORT_ATTEMPTS = 3;

async function startKubeClusterOnce(opts: KubeClusterStartOptions): Promise<KubeCluster> {
  validateKubeClusterOptions(opts);
  const binDir = opts.binDir ?? kubeBinDir();
  const needed = ['etcd', 'kube-apiserver', 'kubectl'];
  // No played node (nodes: 0, e.g. beside a real node): kwok would have nothing to do.
  const played = (opts.nodes ?? KUBE_CLUSTER_DEFAULTS.nodes) > 0;
  if (!opts.controlPlaneOnly) needed.push('kube-controller-manager', 'kube-scheduler');
  if (!opts.controlPlaneOnly && played) needed.push('kwok');
  if (opts.metrics) needed.push('metrics-server');
  for (const program of needed) kubeProgram(binDir, program);
  if (opts.realNode) checkRealNodePrerequisites(binDir);

  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), `flotilla-kube-${opts.name}-`)));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const started = performance.now();
  let cluster: RunningKubeCluster | undefined;
  try {
    const nodeCgroup = opts.realNode ? `flotilla-${opts.name}-${randomBytes(4).toString('hex')}` : undefined;
    const podNetwork = opts.podNetwork && nodeCgroup ? await choosePodNetwork(nodeCgroup) : undefined;
    const [pki, etcdClient, etcdPeer, apiServer, kwok, metrics, kubelet, kubeletHealthz] = await Promise.all([
      createPki(new Pki(dir), opts.name, opts.realNode === true, podNetwork?.gateway),
      freeTcpPort(),
      freeTcpPort(),
      freeTcpPort(),
      freeTcpPort(),
      freeTcpPort(),
      freeTcpPort(),
      freeTcpPort(),
    ]);
    cluster = new RunningKubeCluster(
      opts.name,
      dir,
      binDir,
      pki,
      { etcdClient, etcdPeer, apiServer, kwok, metrics, kubelet, kubeletHealthz },
      opts,
      nodeCgroup,
      podNetwork,
    );
    cluster.timings.certificates = Math.round(performance.now() - started);
    await cluster.startEtcd();
    await cluster.startApiServer();
    await cluster.writeAdminKubeconfig();
    if (!opts.controlPlaneOnly) {
      await cluster.startControllers();
      await cluster.createNodes();
      if (played) await cluster.startKwok();
      if (opts.metrics) await cluster.startMetricsServer();
      await cluster.writeRecord();
      await cluster.waitNodesReady();
      if (opts.realNode) await cluster.startRealNode();
    }
    cluster.timings.total = Math.round(performance.now() - started);
    await cluster.writeRecord();
    return cluster;
  } catch (err) {
    if (cluster) await cluster.stop().catch(() => undefined);
    else await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Writes `<record.dir>/cluster.json`, what scripts/kube-env reads back. */
export async function writeKubeClusterRecord(record: KubeClusterRecord): Promise<void> {
  await writeFile(join(record.dir, 'cluster.json'), `${JSON.stringify(record, null, 2)}\n`);
}

/** The program `name` of a record, as `stopPid` and `isRecordedAlive` take it; undefined when none is recorded. */
export function recordedProcess(record: KubeClusterRecord, name: string): RecordedProcess | undefined {
  const pid = record.pids[name];
  if (pid === undefined) return undefined;
  const start = record.starts?.[name];
  return start === undefined ? { pid } : { pid, start };
}

/** Every program of a record with its process, in the record's order. */
export function recordedProcesses(record: KubeClusterRecord): [string, RecordedProcess][] {
  return Object.keys(record.pids).map((name) => [name, recordedProcess(record, name)!]);
}

/** Records that `name` now runs as `pid` (started at `processStartTime(pid)`), or, without a pid, that it is gone. */
export function setRecordedProcess(record: KubeClusterRecord, name: string, pid: number | undefined): void {
  if (pid === undefined) {
    delete record.pids[name];
    delete record.starts?.[name];
    return;
  }
  record.pids[name] = pid;
  const start = processStartTime(pid);
  record.starts ??= {};
  if (start === undefined) delete record.starts[name];
  else record.starts[name] = start;
}

/** Reads `<dir>/cluster.json` of a cluster scripts/kube-env started. */
export async function readKubeClusterRecord(dir: string): Promise<KubeClusterRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'cluster.json'), 'utf8')) as KubeClusterRecord;
  } catch {
    return undefined;
  }
}
