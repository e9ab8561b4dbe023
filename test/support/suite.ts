import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Suite } from '@flotilla/launcher';
import { NATS_URL, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import { connectBus, destroyBus } from '@flotilla/bus';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RunningSuite {
  suite: Suite;
  env: Record<string, string>;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * Starts the built services as separate processes on a fresh prefix. `stop` sends SIGTERM, checks every process
 * exited cleanly, and removes the prefix's streams and buckets.
 */
export async function startSuite(services: string[], extraEnv: Record<string, string> = {}): Promise<RunningSuite> {
  const prefix = uniquePrefix('e2e');
  const env = { NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix, LOG_LEVEL: 'info', LEADER_LEASE_MS: '2000', ...extraEnv };
  const logs: string[] = [];
  const suite = new Suite({ root: ROOT, services, env, onOutput: (s, l) => logs.push(`[${s}] ${l}`) });
  try {
    await suite.start();
  } catch (err) {
    await suite.stop();
    throw new Error(`${(err as Error).message}\n${logs.slice(-30).join('\n')}`);
  }
  return {
    suite,
    env,
    logs,
    async stop() {
      await suite.stop();
      const bus = await connectBus({ url: NATS_URL, prefix });
      await destroyBus(bus);
      await bus.close();
    },
  };
}
