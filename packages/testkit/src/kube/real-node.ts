/**
 * A real node for a kube-env cluster: Kubernetes' kubelet with a containerd of its own (Debian's containerd and runc),
 * on the machine itself. What this machine kind needs, as measured (README, "A real node"):
 * - containerd with `restrict_oom_score_adj` (root here lacks CAP_SYS_RESOURCE: without it runc fails with "can't get
 *   final child's PID from pipe: EOF"), a locally built pause image (nothing can be pulled) and a CNI configuration
 *   with the loopback plugin only: pods use host networking; or, with a pod network (`PodNetwork`), Debian's CNI
 *   `bridge` and `host-local` plugins on a bridge of the node's own;
 * - the kubelet with `failCgroupV1: false` and the cgroupfs driver (cgroups v1 here), `failSwapOn: false`, serving on
 *   127.0.0.1 only. It refuses a loopback node IP, so the node is named `localhost` and the API server reaches it by
 *   that Hostname address (`--kubelet-preferred-address-types=Hostname,…`): API server → kubelet stays on loopback.
 * Everything the node starts lives in a cgroup of its own (`cgroupRoot` of the kubelet, containerd and its shims in
 * `<cgroup>/runtime`), so stopping it kills exactly its processes, the pods' included, and nothing else.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, readlink, realpath, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeBinariesMissingError } from './bin-dir.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The node's name, and the host name the API server reaches its kubelet by (it resolves to 127.0.0.1). */
export const REAL_NODE_NAME = 'localhost';

/** Debian's CNI plugins (containernetworking-plugins). */
const CNI_BIN_DIR = '/usr/lib/cni';
const CGROUP_FS = '/sys/fs/cgroup';
/** Where the kubelet links every container's log (a fixed path in the kubelet). */
const CONTAINER_LOG_LINKS = '/var/log/containers';
/** Where containerd 1.6 puts its shims' sockets, whatever its state folder. */
const SHIM_SOCKET_DIR = '/run/containerd/s';
/** A unix socket path must fit in sockaddr_un (108 bytes with the terminating NUL). */
const MAX_SOCKET_PATH = 100;

/** What the real node needs of the machine, each named by the Debian package or build step that provides it. */
const PREREQUISITES: { path: string; from: string }[] = [
  { path: 'containerd', from: 'apt-get install containerd' },
  { path: 'containerd-shim-runc-v2', from: 'apt-get install containerd' },
  { path: 'runc', from: 'apt-get install runc' },
  { path: 'ctr', from: 'apt-get install containerd' },
  { path: 'ip', from: 'apt-get install iproute2' },
  ...['loopback', 'bridge', 'host-local'].map((plugin) => ({
    path: join(CNI_BIN_DIR, plugin),
    from: 'apt-get install containernetworking-plugins',
  })),
];

/** Folders of PATH plus /usr/sbin (runc), which a non-login shell may not have. */
export function realNodePath(): string {
  const dirs = (process.env.PATH ?? '/usr/bin:/bin').split(':');
  for (const d of ['/usr/sbin', '/usr/bin', '/sbin', '/bin']) if (!dirs.includes(d)) dirs.push(d);
  return dirs.join(':');
}

function onPath(program: string): boolean {
  if (program.startsWith('/')) return existsSync(program);
  return realNodePath()
    .split(':')
    .some((d) => existsSync(join(d, program)));
}

/** An image `scripts/kube-env build` made for the real node: a `docker save` archive and the reference it carries. */
export interface RealNodeImage {
  archivePath: string;
  ref: string;
}

/** The pause (sandbox) image or the busybox test image, from the `images` folder beside the programs. */
export function realNodeImage(binDir: string, name: 'pause' | 'busybox'): RealNodeImage {
  const archivePath = join(binDir, '..', 'images', `${name}.tar`);
  const refPath = join(binDir, '..', 'images', `${name}.ref`);
  if (!existsSync(archivePath) || !existsSync(refPath))
    throw new KubeBinariesMissingError(
      `the real node's ${name} image is missing (${archivePath}): run \`bash scripts/kube-env build\``,
    );
  return { archivePath, ref: readFileSync(refPath, 'utf8').trim() };
}

/** Throws naming every missing program and how to get it (scripts/kube-env build installs them). */
export function checkRealNodePrerequisites(binDir: string): void {
  const missing = PREREQUISITES.filter((p) => !onPath(p.path)).map((p) => `${p.path} (${p.from})`);
  if (!existsSync(join(binDir, 'kubelet'))) missing.push(`${join(binDir, 'kubelet')} (bash scripts/kube-env build)`);
  if (missing.length)
    throw new KubeBinariesMissingError(
      `the real node needs ${missing.join(', ')}: \`bash scripts/kube-env build\` installs and builds them`,
    );
  if (process.getuid?.() !== 0) throw new Error('the real node runs containers: it must be started as root');
}

/** The paths of one real node inside its cluster's folder. */
export interface RealNodeLayout {
  /** The cluster's folder. */
  dir: string;
  /** The cgroup (below every hierarchy's root) that holds everything the node runs. */
  cgroup: string;
  containerdConfig: string;
  containerdSocket: string;
  containerdRoot: string;
  containerdState: string;
  cniConfDir: string;
  kubeletConfig: string;
  kubeletRoot: string;
  podLogsDir: string;
}

export function realNodeLayout(dir: string, cgroup: string): RealNodeLayout {
  const c = join(dir, 'containerd');
  const layout = {
    dir,
    cgroup,
    containerdConfig: join(c, 'config.toml'),
    containerdSocket: join(c, 'containerd.sock'),
    containerdRoot: join(c, 'root'),
    containerdState: join(c, 'state'),
    cniConfDir: join(c, 'cni'),
    kubeletConfig: join(dir, 'kubelet-config.json'),
    kubeletRoot: join(dir, 'kubelet'),
    podLogsDir: join(dir, 'pod-logs'),
  };
  // containerd's ttrpc socket is this path + ".ttrpc".
  if (`${layout.containerdSocket}.ttrpc`.length > MAX_SOCKET_PATH)
    throw new Error(
      `dir: ${dir} is too long for containerd's socket (${layout.containerdSocket}.ttrpc must stay under ` +
        `${MAX_SOCKET_PATH} characters): use a shorter FLOTILLA_KUBE_STATE or TMPDIR`,
    );
  return layout;
}

/**
 * A real node's pod network: a Linux bridge of its own (named after the node's cgroup, so that whoever cleans the
 * node up can find it) whose address is the pods' gateway, and the /24 the CNI host-local plugin hands out. The
 * node's end, `gateway`, is where pods reach what runs on the node (the API server, NATS and Redis listen there too).
 */
export interface PodNetwork {
  bridge: string;
  /** `10.244.X.0/24` */
  subnet: string;
  /** `10.244.X.1` */
  gateway: string;
}

/** The bridge of the node whose cgroup is `cgroup`: `flb` and 8 hex digits (an interface name has at most 15). */
export const podBridgeName = (cgroup: string): string =>
  `flb${createHash('sha256').update(cgroup).digest('hex').slice(0, 8)}`;

/**
 * A pod network in 10.244.0.0/16 that no address or route of the machine touches (another node's, say), picked at
 * random among the free /24s so that two nodes started at once do not pick the same.
 */
export async function choosePodNetwork(cgroup: string, random = Math.random): Promise<PodNetwork> {
  const [addrs, routes] = await Promise.all([
    run('ip', ['-4', '-o', 'addr', 'show'], { env: { ...process.env, PATH: realNodePath() } }),
    run('ip', ['-4', '-o', 'route', 'show', 'table', 'all'], { env: { ...process.env, PATH: realNodePath() } }),
  ]);
  const used = new Set(
    [...`${addrs.stdout}\n${routes.stdout}`.matchAll(/\b10\.244\.(\d+)\./g)].map((m) => Number(m[1])),
  );
  const free = Array.from({ length: 254 }, (_, i) => i + 1).filter((x) => !used.has(x));
  const x = free[Math.floor(random() * free.length)];
  if (x === undefined) throw new Error("no free /24 in 10.244.0.0/16 for the real node's pods");
  return { bridge: podBridgeName(cgroup), subnet: `10.244.${x}.0/24`, gateway: `10.244.${x}.1` };
}

/** Makes the bridge with the gateway's address, before containerd asks the bridge plugin for a pod's network. */
export async function createPodBridge(network: PodNetwork): Promise<void> {
  const ip = (args: string[]) => run('ip', args, { env: { ...process.env, PATH: realNodePath() } });
  await ip(['link', 'add', 'name', network.bridge, 'type', 'bridge']);
  await ip(['addr', 'add', `${network.gateway}/24`, 'dev', network.bridge]);
  await ip(['link', 'set', network.bridge, 'up']);
}

/**
 * The bridge plugin on the node's bridge, addresses from host-local (kept in the node's folder), the default route
 * through the gateway, no masquerading: pods reach the node and one another, nothing else.
 */
export function podNetworkCniConfig(network: PodNetwork, layout: RealNodeLayout): Record<string, unknown> {
  return {
    cniVersion: '1.0.0',
    name: 'flotilla-pods',
    plugins: [
      {
        type: 'bridge',
        bridge: network.bridge,
        isGateway: true,
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: network.subnet, gateway: network.gateway }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: join(layout.dir, 'cni-ipam'),
        },
      },
    ],
  };
}

/** containerd's configuration (version 2, Debian's containerd 1.6): its own root, state and socket. */
export function containerdConfig(layout: RealNodeLayout, sandboxImage: string): string {
  const q = JSON.stringify;
  return [
    'version = 2',
    `root = ${q(layout.containerdRoot)}`,
    `state = ${q(layout.containerdState)}`,
    'disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",',
    '  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]',
    '[grpc]',
    `  address = ${q(layout.containerdSocket)}`,
    '[plugins."io.containerd.internal.v1.opt"]',
    `  path = ${q(join(layout.containerdRoot, 'opt'))}`,
    '[plugins."io.containerd.grpc.v1.cri"]',
    // Nothing can be pulled here: the sandbox image is Kubernetes' pause, built and imported locally.
    `  sandbox_image = ${q(sandboxImage)}`,
    // Root without CAP_SYS_RESOURCE may not lower oom_score_adj: the pause container would fail to start.
    '  restrict_oom_score_adj = true',
    '  disable_apparmor = true',
    // The pods' network namespaces are mounted in the node's state folder, not /var/run/netns: the node's clean-up
    // undoes every mount below its folder.
    '  netns_mounts_under_state_dir = true',
    '  [plugins."io.containerd.grpc.v1.cri".containerd]',
    '    snapshotter = "overlayfs"',
    '    default_runtime_name = "runc"',
    '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
    '      runtime_type = "io.containerd.runc.v2"',
    '  [plugins."io.containerd.grpc.v1.cri".cni]',
    `    bin_dir = ${q(CNI_BIN_DIR)}`,
    `    conf_dir = ${q(layout.cniConfDir)}`,
    '',
  ].join('\n');
}

/**
 * Loopback only: the runtime reports its network ready (so the node becomes Ready), and pods use host networking.
 * A pod without `hostNetwork` gets a network namespace with nothing but lo.
 */
export const LOOPBACK_CNI_CONFIG = {
  cniVersion: '1.0.0',
  name: 'flotilla-loopback',
  plugins: [{ type: 'loopback' }],
};

export interface KubeletConfigurationOptions {
  layout: RealNodeLayout;
  caCertPath: string;
  port: number;
  healthzPort: number;
  maxPods: number;
}

/** The kubelet's KubeletConfiguration (v1beta1) for this machine kind. */
export function kubeletConfiguration(opts: KubeletConfigurationOptions): Record<string, unknown> {
  const { layout } = opts;
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // Loopback only; the API server reaches it as `localhost` (REAL_NODE_NAME).
    address: '127.0.0.1',
    port: opts.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: opts.healthzPort,
    // The machine has cgroups v1 (hybrid); Kubernetes 1.35+ refuses them unless told otherwise.
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: `/${layout.cgroup}`,
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${layout.containerdSocket}`,
    podLogsDir: layout.podLogsDir,
    // The API server authenticates with its kubelet client certificate (signed by the cluster CA); no anonymous access.
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: opts.caCertPath },
    },
    authorization: { mode: 'Webhook' },
    // Images are imported, never pulled: garbage-collecting one would lose it for good.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    maxPods: opts.maxPods,
    resolvConf: '/etc/resolv.conf',
  };
}

/** The hierarchies a cgroup lives in: the v2 root, or each v1 hierarchy (deduplicated: cpu,cpuacct may be one). */
async function cgroupHierarchies(): Promise<{ v2: boolean; roots: string[] }> {
  if (existsSync(join(CGROUP_FS, 'cgroup.controllers'))) return { v2: true, roots: [CGROUP_FS] };
  const roots = new Map<string, string>();
  for (const entry of await readdir(CGROUP_FS)) {
    // The hybrid layout's v2 mount carries no controllers: the kubelet and runc use the v1 hierarchies.
    if (entry === 'unified') continue;
    const path = join(CGROUP_FS, entry);
    if (!existsSync(join(path, 'cgroup.procs'))) continue;
    roots.set(await realpath(path), path);
  }
  return { v2: false, roots: [...roots.values()] };
}

/** The hierarchy whose cgroup.procs lists every process of a cgroup tree (pids in v1). */
async function trackingRoot(): Promise<string> {
  const { v2, roots } = await cgroupHierarchies();
  if (v2) return CGROUP_FS;
  const pids = roots.find((r) => r.endsWith('/pids'));
  if (!pids) throw new Error(`no pids cgroup hierarchy under ${CGROUP_FS}: the real node cannot track its processes`);
  return pids;
}

/**
 * Creates the node's cgroup in every hierarchy (the kubelet checks that its cgroupRoot exists in each), and
 * `<cgroup>/runtime` for containerd.
 */
export async function createRealNodeCgroup(cgroup: string): Promise<void> {
  const { v2, roots } = await cgroupHierarchies();
  for (const root of roots) {
    const path = join(root, cgroup);
    await mkdir(path, { recursive: true });
    if (v2) {
      const controllers = (await readFile(join(root, 'cgroup.subtree_control'), 'utf8')).trim().split(/\s+/);
      const wanted = controllers.filter(Boolean).map((c) => `+${c}`);
      if (wanted.length) await writeFile(join(path, 'cgroup.subtree_control'), wanted.join(' '));
    } else if (root.endsWith('/cpuset')) {
      // A new cpuset takes no process until it has CPUs and memory nodes: give it the root's.
      for (const f of ['cpuset.cpus', 'cpuset.mems'])
        await writeFile(join(path, f), await readFile(join(root, f), 'utf8'));
    }
  }
  await mkdir(join(await trackingRoot(), cgroup, 'runtime'), { recursive: true });
}

/** Moves a process (containerd, before it starts anything) into `<cgroup>/runtime`. */
export async function joinRuntimeCgroup(cgroup: string, pid: number): Promise<void> {
  await writeFile(join(await trackingRoot(), cgroup, 'runtime', 'cgroup.procs'), String(pid));
}

async function cgroupTreePids(path: string): Promise<number[]> {
  if (!existsSync(path)) return [];
  const pids = (await readFile(join(path, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean).map(Number);
  for (const entry of await readdir(path, { withFileTypes: true }))
    if (entry.isDirectory()) pids.push(...(await cgroupTreePids(join(path, entry.name))));
  return pids;
}

/** cgroup folders below `path`, deepest first (rmdir order). */
async function cgroupDirsDeepestFirst(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  const dirs: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true }))
    if (entry.isDirectory()) dirs.push(...(await cgroupDirsDeepestFirst(join(path, entry.name))));
  dirs.push(path);
  return dirs;
}

/**
 * The sockets of containerd's runc shims, which a killed shim leaves in containerd's fixed /run/containerd/s: one per
 * task, named by sha256 of `<containerd socket>/<namespace>/<task id>` (containerd 1.6's shim.SocketAddress).
 */
async function shimSocketPaths(layout: RealNodeLayout): Promise<string[]> {
  const tasks = join(layout.containerdState, 'io.containerd.runtime.v2.task', 'k8s.io');
  if (!existsSync(tasks)) return [];
  return (await readdir(tasks)).map((id) =>
    join(SHIM_SOCKET_DIR, createHash('sha256').update(`${layout.containerdSocket}/k8s.io/${id}`).digest('hex')),
  );
}

/** Decodes a mountinfo path (spaces and the like are octal escapes). */
const unescapeMount = (p: string) =>
  p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** Mount points at or below `dir` (containers' root file systems, sandboxes' /dev/shm, pods' secret volumes). */
async function mountsBelow(dir: string): Promise<string[]> {
  const info = await readFile('/proc/self/mountinfo', 'utf8');
  return info
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => p !== undefined)
    .map(unescapeMount)
    .filter((p) => p === dir || p.startsWith(`${dir}/`));
}

/**
 * Stops what a real node left: every process of its cgroup (containerd, its shims and every pod's processes) killed,
 * the mounts below its folder undone, its cgroups removed and the kubelet's log links to its pods removed. Stop the
 * kubelet first (it would start the pods again). Safe to call twice.
 */
export async function cleanupRealNode(opts: { dir: string; cgroup: string }): Promise<void> {
  const layout = realNodeLayout(opts.dir, opts.cgroup);
  const shimSockets = await shimSocketPaths(layout);
  const tree = join(await trackingRoot(), opts.cgroup);
  for (let attempt = 0; ; attempt++) {
    const pids = await cgroupTreePids(tree);
    if (!pids.length) break;
    if (attempt > 100) throw new Error(`processes ${pids.join(', ')} of cgroup ${opts.cgroup} survive SIGKILL`);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await sleep(50);
  }
  const mounts = (await mountsBelow(opts.dir)).sort((a, b) => b.length - a.length);
  for (const mount of mounts) await run('umount', ['-l', mount]).catch(() => undefined);
  const { roots } = await cgroupHierarchies();
  // runc also makes the pods' cgroups in the hybrid layout's v2 mount (without controllers).
  const unified = join(CGROUP_FS, 'unified');
  if (existsSync(join(unified, opts.cgroup))) roots.push(unified);
  for (const root of roots)
    for (const dir of await cgroupDirsDeepestFirst(join(root, opts.cgroup)))
      await rmdir(dir).catch(async () => {
        // A cgroup can stay busy a moment after its last process died.
        await sleep(200);
        await rmdir(dir);
      });
  for (const socket of shimSockets) await rm(socket, { force: true });
  // The pod network's bridge, if the node had one (its veths went with the pods' network namespaces).
  await run('ip', ['link', 'del', podBridgeName(opts.cgroup)], { env: { ...process.env, PATH: realNodePath() } }).catch(
    () => undefined,
  );
  if (existsSync(CONTAINER_LOG_LINKS))
    for (const link of await readdir(CONTAINER_LOG_LINKS)) {
      const path = join(CONTAINER_LOG_LINKS, link);
      const target = await readlink(path).catch(() => '');
      if (target.startsWith(`${opts.dir}/`)) await unlink(path).catch(() => undefined);
    }
}

/** `ctr images import` into the node's containerd (namespace k8s.io, where the kubelet's images live). */
export async function importImageArchive(containerdSocket: string, archivePath: string): Promise<void> {
  try {
    await run('ctr', ['--address', containerdSocket, '--namespace', 'k8s.io', 'images', 'import', archivePath], {
      env: { ...process.env, PATH: realNodePath() },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`ctr images import ${archivePath} failed: ${stderr || (err as Error).message}`);
  }
}

/** Writes the node's configuration files: containerd's, the CNI network (loopback, or the pod network) and the kubelet's. */
export async function writeRealNodeConfig(
  layout: RealNodeLayout,
  opts: { sandboxImage: string; kubelet: Omit<KubeletConfigurationOptions, 'layout'>; podNetwork?: PodNetwork },
): Promise<void> {
  await mkdir(layout.cniConfDir, { recursive: true });
  await mkdir(layout.kubeletRoot, { recursive: true });
  await mkdir(layout.podLogsDir, { recursive: true });
  await writeFile(layout.containerdConfig, containerdConfig(layout, opts.sandboxImage));
  const cni = opts.podNetwork
    ? { file: '10-flotilla-pods.conflist', config: podNetworkCniConfig(opts.podNetwork, layout) }
    : { file: '10-loopback.conflist', config: LOOPBACK_CNI_CONFIG };
  await writeFile(join(layout.cniConfDir, cni.file), `${JSON.stringify(cni.config)}\n`);
  await writeFile(
    layout.kubeletConfig,
    `${JSON.stringify(kubeletConfiguration({ ...opts.kubelet, layout }), null, 2)}\n`,
  );
}
