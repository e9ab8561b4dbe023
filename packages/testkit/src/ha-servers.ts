import { connect as netConnect } from 'node:net';
import { freeTcpPort } from '@flotilla/ports';
import { PrivateRedis } from './private-redis.js';
import { PrivateNats } from './private-nats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export interface ClusterPorts {
  client: number;
  route: number;
  monitor: number;
}

/** One node's ports, from `base` (up's fixed ports) or free ones (tests). */
async function nodePorts(base: ClusterPorts | undefined, i: number): Promise<ClusterPorts> {
  if (base) return { client: base.client + i, route: base.route + i, monitor: base.monitor + i };
  return { client: await freeTcpPort(), route: await freeTcpPort(), monitor: await freeTcpPort() };
}

interface StreamDetail {
  name: string;
  cluster?: { leader?: string };
  state?: { last_seq?: number };
}
interface Jsz {
  account_details?: Array<{ stream_detail?: StreamDetail[] }>;
}

/** How many sets of free ports PrivateNatsCluster.start tries when a node finds one of them taken. */
const PORT_ATTEMPTS = 3;

export interface PrivateNatsClusterOptions {
  /** Nodes (default 3: JetStream's quorum survives one lost node). */
  size?: number;
  /** The first node's ports; node i takes each + i. Default: free ports. */
  basePorts?: ClusterPorts;
  /** The cluster's name (its INFO names it, which tells clients they are on a cluster). */
  name?: string;
}

/**
 * A JetStream cluster of a test's own on loopback (scripts/up --ha runs the same): `size` nats-servers routed to each
 * other, each with its own store in a temporary folder, so that a test can kill -9 one (`kill`) and bring it back with
 * its data (`restart`). `url` lists every node, as NATS_URL does for services.
 */
export class PrivateNatsCluster {
  private constructor(
    readonly nodes: PrivateNats[],
    readonly ports: ClusterPorts[],
    readonly serverNames: string[],
  ) {}

  static async start(opts: PrivateNatsClusterOptions = {}): Promise<PrivateNatsCluster> {
    // Free ports are free when they are picked, not when the nodes bind them: a file running beside this one may take
    // one of the nine in between ("address already in use"). Fresh ports then, a few times; fixed ports fail at once.
    for (let attempt = 1; ; attempt++) {
      try {
        return await PrivateNatsCluster.startOnce(opts);
      } catch (err) {
        if (opts.basePorts || attempt >= PORT_ATTEMPTS || !/address already in use/i.test(String(err))) throw err;
      }
    }
  }

  private static async startOnce(opts: PrivateNatsClusterOptions): Promise<PrivateNatsCluster> {
    const size = opts.size ?? 3;
    const name = opts.name ?? 'flotilla';
    const ports: ClusterPorts[] = [];
    for (let i = 0; i < size; i++) ports.push(await nodePorts(opts.basePorts, i));
    const serverNames = ports.map((_, i) => `n${i + 1}`);
    const nodes = ports.map(
      (p, i) =>
        new PrivateNats(p.client, {
          config: [
            `server_name: ${serverNames[i]}`,
            `http: "127.0.0.1:${p.monitor}"`,
            'cluster {',
            `  name: ${name}`,
            `  listen: "127.0.0.1:${p.route}"`,
            `  routes: [${ports
              .filter((_, j) => j !== i)
              .map((o) => `"nats-route://127.0.0.1:${o.route}"`)
              .join(', ')}]`,
            '}',
          ].join('\n'),
        }),
    );
    const cluster = new PrivateNatsCluster(nodes, ports, serverNames);
    try {
      await Promise.all(nodes.map((n) => n.start()));
      await cluster.waitHealthy();
    } catch (err) {
      await cluster.dispose();
      throw err;
    }
    return cluster;
  }

  /** Every node's client URL, comma-separated (NATS_URL). */
  get url(): string {
    return this.ports.map((p) => `nats://127.0.0.1:${p.client}`).join(',');
  }

  /** Node i's client URL alone (a client connected there learns the others from the cluster's gossip). */
  nodeUrl(i: number): string {
    return `nats://127.0.0.1:${this.ports[i]?.client}`;
  }

  private async monitor<T>(i: number, path: string): Promise<T> {
    const res = await fetch(`http://127.0.0.1:${this.ports[i]?.monitor}${path}`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) throw new Error(`${path} on ${this.serverNames[i]}: HTTP ${res.status}`);
    return (await res.json()) as T;
  }

  /** True when node i runs and its /healthz says JetStream is current (a meta leader known, its streams caught up). */
  async healthy(i: number): Promise<boolean> {
    return this.monitor<{ status: string }>(i, '/healthz').then(
      (h) => h.status === 'ok',
      () => false,
    );
  }

  /** Waits until every running node is healthy (the whole cluster when none was killed). */
  async waitHealthy(timeoutMs = 60_000, nodes = this.nodes.map((_, i) => i)): Promise<void> {
    await waitFor(
      `nats nodes ${nodes.map((i) => this.serverNames[i]).join(', ')} to be healthy`,
      async () => (await Promise.all(nodes.map((i) => this.healthy(i)))).every(Boolean),
      timeoutMs,
    );
  }

  /** `stream` as node i's monitoring reports it (its own copy), undefined when the node does not answer. */
  private async streamDetail(i: number, stream: string): Promise<StreamDetail | undefined> {
    const jsz = await this.monitor<Jsz>(i, '/jsz?accounts=true&streams=true').catch(() => undefined);
    for (const account of jsz?.account_details ?? []) {
      const detail = account.stream_detail?.find((s) => s.name === stream);
      if (detail) return detail;
    }
    return undefined;
  }

  /** The index of the node that leads `stream` as one of the running nodes sees it (undefined: no leader now). */
  async streamLeader(stream: string): Promise<number | undefined> {
    for (const [i, node] of this.nodes.entries()) {
      if (!node.running) continue;
      const leader = (await this.streamDetail(i, stream))?.cluster?.leader;
      if (leader) {
        const at = this.serverNames.indexOf(leader);
        return at >= 0 ? at : undefined;
      }
    }
    return undefined;
  }

  /** The last sequence node i's own copy of `stream` holds (how far a node that came back has caught up). */
  async storedLastSeq(i: number, stream: string): Promise<number | undefined> {
    return (await this.streamDetail(i, stream))?.state?.last_seq;
  }

  /** kill -9 of node i. */
  async kill(i: number): Promise<void> {
    await this.nodes[i]?.stop('SIGKILL');
  }

  /** Starts node i again with the store it had. */
  async restart(i: number): Promise<void> {
    await this.nodes[i]?.start();
  }

  async dispose(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.dispose()));
  }
}

/** One RESP reply, parsed: strings, integers, arrays; errors as Error values. */
type Resp = string | number | null | Error | Resp[];

function parseResp(buf: string, at = 0): { value: Resp; next: number } | undefined {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return undefined;
  const kind = buf[at];
  const line = buf.slice(at + 1, eol);
  const after = eol + 2;
  if (kind === '+') return { value: line, next: after };
  if (kind === '-') return { value: new Error(line), next: after };
  if (kind === ':') return { value: Number(line), next: after };
  if (kind === '$') {
    const n = Number(line);
    if (n < 0) return { value: null, next: after };
    if (Buffer.byteLength(buf.slice(after)) < n + 2) return undefined;
    return { value: buf.slice(after, after + n), next: after + n + 2 };
  }
  if (kind === '*') {
    const n = Number(line);
    if (n < 0) return { value: null, next: after };
    const items: Resp[] = [];
    let next = after;
    for (let k = 0; k < n; k++) {
      const item = parseResp(buf, next);
      if (!item) return undefined;
      items.push(item.value);
      next = item.next;
    }
    return { value: items, next };
  }
  throw new Error(`unexpected RESP reply: ${buf.slice(at, at + 40)}`);
}

/** One command to a Redis or Sentinel on loopback (the helpers need no client library). */
export function redisCommand(port: number, args: string[], timeoutMs = 2000): Promise<Resp> {
  return new Promise((resolve, reject) => {
    const sock = netConnect({ port, host: '127.0.0.1' });
    let buf = '';
    const done = (err: Error | undefined, value?: Resp) => {
      sock.destroy();
      if (err) reject(err);
      else resolve(value ?? null);
    };
    sock.setTimeout(timeoutMs, () => done(new Error(`no answer from 127.0.0.1:${port} to ${args[0]}`)));
    sock.once('error', (err) => done(err));
    sock.once('connect', () =>
      sock.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`),
    );
    sock.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const parsed = parseResp(buf);
      if (parsed) done(undefined, parsed.value);
    });
  });
}

/** A Sentinel's `[k1, v1, k2, v2, ...]` entries as objects. */
function entries(reply: Resp): Array<Record<string, string>> {
  if (!Array.isArray(reply)) return [];
  return reply.map((flat) => {
    const o: Record<string, string> = {};
    if (Array.isArray(flat)) for (let k = 0; k + 1 < flat.length; k += 2) o[String(flat[k])] = String(flat[k + 1]);
    return o;
  });
}

export interface PrivateRedisSentinelOptions {
  /** The Sentinels' name of the primary (default mymaster). */
  name?: string;
  /** How long a primary may stay silent before a Sentinel calls it down (default 1000 ms). */
  downAfterMs?: number;
  /** Fixed ports: primary, replica, then the three Sentinels (scripts/up --ha). Default: free ports. */
  ports?: { primary: number; replica: number; sentinels: [number, number, number] };
}

/**
 * Redis with Sentinel of a test's own on loopback (scripts/up --ha runs the same): a primary, one replica and three
 * Sentinels with a quorum of 2, without persistence. `start` returns once every Sentinel knows the replica and the
 * other two, so that a kill of the primary is followed by a promotion.
 */
export class PrivateRedisSentinel {
  private constructor(
    readonly name: string,
    /** [0] starts as the primary, [1] as its replica; after a failover the roles are swapped. */
    readonly servers: [PrivateRedis, PrivateRedis],
    readonly sentinels: PrivateRedis[],
  ) {}

  static async start(opts: PrivateRedisSentinelOptions = {}): Promise<PrivateRedisSentinel> {
    const name = opts.name ?? 'mymaster';
    const ports = opts.ports ?? {
      primary: await freeTcpPort(),
      replica: await freeTcpPort(),
      sentinels: [await freeTcpPort(), await freeTcpPort(), await freeTcpPort()] as [number, number, number],
    };
    const primary = new PrivateRedis(ports.primary);
    const replica = new PrivateRedis(ports.replica, { args: ['--replicaof', '127.0.0.1', String(ports.primary)] });
    const sentinels = ports.sentinels.map(
      (p) =>
        new PrivateRedis(p, {
          sentinel: [
            `sentinel monitor ${name} 127.0.0.1 ${ports.primary} 2`,
            `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1000}`,
            `sentinel failover-timeout ${name} 10000`,
            `sentinel parallel-syncs ${name} 1`,
          ].join('\n'),
        }),
    );
    const set = new PrivateRedisSentinel(name, [primary, replica], sentinels);
    try {
      await primary.start();
      await replica.start();
      await Promise.all(sentinels.map((s) => s.start()));
      await set.waitSettled();
    } catch (err) {
      await set.dispose();
      throw err;
    }
    return set;
  }

  /** REDIS_SENTINELS: the Sentinels' `host:port` list. */
  get sentinelList(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /** The port of the primary the Sentinels name now (undefined: they do not agree, or none answers). */
  async primaryPort(): Promise<number | undefined> {
    const seen = new Set<number>();
    for (const s of this.sentinels) {
      if (!s.running) continue;
      const addr = await redisCommand(s.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name]).catch(() => null);
      if (Array.isArray(addr)) seen.add(Number(addr[1]));
    }
    return seen.size === 1 ? [...seen][0] : undefined;
  }

  /** The server that is primary now, by the Sentinels. */
  async primary(): Promise<PrivateRedis | undefined> {
    const port = await this.primaryPort();
    return this.servers.find((s) => s.port === port);
  }

  /**
   * Waits until the Sentinels agree on a primary, every running Sentinel knows the two others and a replica in sync
   * (a failover needs both), and the replica's link to the primary is up.
   */
  async waitSettled(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      `the Sentinels of ${this.name} to know their replica and each other`,
      async () => {
        const primaryPort = await this.primaryPort();
        if (primaryPort === undefined) return false;
        for (const s of this.sentinels) {
          if (!s.running) continue;
          const replicas = entries(await redisCommand(s.port, ['SENTINEL', 'REPLICAS', this.name]));
          const others = entries(await redisCommand(s.port, ['SENTINEL', 'SENTINELS', this.name]));
          const running = this.sentinels.filter((o) => o.running).length - 1;
          if (!replicas.some((r) => r['master-link-status'] === 'ok' && !r.flags?.includes('down'))) return false;
          if (others.filter((o) => !o.flags?.includes('down')).length < running) return false;
        }
        return true;
      },
      timeoutMs,
    );
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.servers].map((s) => s.dispose()));
  }
}
