import { Agent, createServer, get, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GracefulClose } from './graceful-close.js';

/** A server whose `/held` requests wait for `release`, closed through GracefulClose. */
async function heldServer(onHeld: (res: ServerResponse) => void) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const heldArrived = new Promise<void>((r) => (arrived = r));
  const server = createServer((req, res) => {
    graceful.track(req, res);
    if (req.url !== '/held') return void res.end('ok');
    onHeld(res);
    arrived();
    void released.then(() => res.end('held'));
  });
  const graceful = new GracefulClose(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  // One keep-alive connection, as a browser tab reuses one for its next request.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const request = (path: string) =>
    new Promise<IncomingHttpHeaders>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      }).on('error', reject);
    });
  servers.push({ server, agent });
  return { graceful, request, heldArrived, release };
}

const servers: Array<{ server: ReturnType<typeof createServer>; agent: Agent }> = [];
afterEach(() => {
  for (const { server, agent } of servers.splice(0)) {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  }
});

/** How many of `max` back-to-back requests a client retrying at once gets answered before one fails. */
async function answeredRetries(request: (path: string) => Promise<unknown>, max = 20): Promise<number> {
  for (let n = 0; n < max; n++) {
    try {
      await request('/again');
    } catch {
      return n;
    }
  }
  return max;
}

describe('GracefulClose', () => {
  it('a request in flight when the close begins is answered as its connection’s last: a client retrying at once is refused and the close completes', async () => {
    const s = await heldServer(() => undefined);
    const held = s.request('/held');
    await s.heldArrived;
    const closed = s.graceful.close();
    s.release();
    // Node's close() alone answers with keep-alive here and then every retry on that connection, forever.
    expect((await held).connection).toBe('close');
    expect(await answeredRetries(s.request)).toBe(0);
    await closed;
  });

  it('a response already under way when the close begins is finished, then its connection ends', async () => {
    const s = await heldServer((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part ');
    });
    const held = s.request('/held');
    await s.heldArrived;
    const closed = s.graceful.close();
    s.release();
    expect((await held).connection).toBe('keep-alive');
    expect(await answeredRetries(s.request)).toBe(0);
    await closed;
  });

  it('before a close, connections are kept alive as usual', async () => {
    const s = await heldServer(() => undefined);
    expect((await s.request('/')).connection).toBe('keep-alive');
    expect(await answeredRetries(s.request, 5)).toBe(5);
    await s.graceful.close();
  });
});
