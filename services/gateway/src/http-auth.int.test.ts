import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { KubeEventStore, ObjectStore } from '@flotilla/store';
import { ApiTokens } from './api-tokens.js';
import { GatewayHandler } from './handler.js';
import { InsecureBindError, serveHttpApi } from './http-api.js';

const ADMIN = 'admin-token-0123456789abcdef';
const READER = 'read-token-0123456789abcdef';
const tokens = ApiTokens.parse(`${ADMIN},admin,ci\n${READER},read,dashboard\n`);
const log = { error: () => undefined };
/** POST bodies of the HTTP API are JSON, declared so (a body of another type is refused unread). */
const JSON_BODY = { 'content-type': 'application/json' };

let bus: Bus & { dispose(): Promise<void> };
let handler: GatewayHandler;
let http: { port: number; close(): Promise<void> };

beforeAll(async () => {
  bus = await testBus('gwauth');
  handler = new GatewayHandler({
    store: new ObjectStore(bus),
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
  });
  http = await serveHttpApi(handler, { host: '127.0.0.1', port: 0, tokens }, log);
});
afterAll(async () => {
  await http?.close();
  await bus?.dispose();
});

const cluster = {
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'member-1' },
  spec: { syncMode: 'Push' },
};

async function call(op: string, body: object, token?: string) {
  const res = await fetch(`http://127.0.0.1:${http.port}/api/${op}`, {
    method: 'POST',
    headers: { ...JSON_BODY, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, auth: res.headers.get('www-authenticate'), reply: (await res.json()) as never };
}

describe('gateway HTTP API authentication', () => {
  it('answers 401 without a token or with one it does not know, and changes nothing', async () => {
    for (const token of [undefined, 'not-a-token-0123456789abcdef']) {
      const r = await call('apply', { object: cluster }, token);
      expect(r).toMatchObject({ status: 401, auth: 'Bearer', reply: { ok: false, error: { reason: 'Unauthorized' } } });
    }
    expect((await call('list', { kind: 'Cluster' }, ADMIN)).reply).toEqual({ ok: true, result: { items: [] } });
  });

  it('lets a read token get, list and read events, and answers 403 to its apply and delete', async () => {
    expect((await call('apply', { object: cluster }, ADMIN)).status).toBe(200);
    expect((await call('get', { kind: 'Cluster', name: 'member-1' }, READER)).status).toBe(200);
    expect((await call('list', { kind: 'Cluster' }, READER)).status).toBe(200);
    expect((await call('events', {}, READER)).status).toBe(200);
    const apply = await call('apply', { object: { ...cluster, spec: { syncMode: 'Pull' } } }, READER);
    expect(apply).toMatchObject({ status: 403, reply: { error: { reason: 'Forbidden' } } });
    expect((apply.reply as { error: { message: string } }).error.message).toMatch(/dashboard.*read.*apply/);
    const del = await call('delete', { kind: 'Cluster', name: 'member-1' }, READER);
    expect(del).toMatchObject({ status: 403, reply: { error: { reason: 'Forbidden' } } });
    const stored = await call('get', { kind: 'Cluster', name: 'member-1' }, ADMIN);
    expect(stored.reply).toMatchObject({ ok: true, result: { spec: { syncMode: 'Push' } } });
  });

  it('lets an admin token delete', async () => {
    expect((await call('delete', { kind: 'Cluster', name: 'member-1' }, ADMIN)).status).toBe(200);
    expect((await call('get', { kind: 'Cluster', name: 'member-1' }, ADMIN)).status).toBe(404);
  });

  it('asks the admission webhook for a token too', async () => {
    const review = { request: { uid: 'u1', object: cluster } };
    const post = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${http.port}/validate`, {
        method: 'POST',
        headers: { ...JSON_BODY, ...headers },
        body: JSON.stringify(review),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Bearer ${READER}` })).status).toBe(200);
  });

  it('refuses to listen beyond loopback without tokens, naming the variables to set', async () => {
    const err = await serveHttpApi(handler, { host: '0.0.0.0', port: 0 }, log).then(
      (s) => s.close(),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InsecureBindError);
    expect((err as Error).message).toMatch(/GATEWAY_TOKENS_FILE/);
    expect((err as Error).message).toMatch(/GATEWAY_API_HOST/);
    const open = await serveHttpApi(handler, { host: '127.0.0.1', port: 0 }, log);
    await open.close();
    const compose = await serveHttpApi(handler, { host: '0.0.0.0', port: 0, allowAnonymous: true }, log);
    await compose.close();
  });
});

/** A CA, a server certificate for 127.0.0.1 and two client certificates: one from the CA, one self-signed. */
function makeCertificates(dir: string) {
  const ssl = (args: string) => execFileSync('openssl', args.split(' '), { cwd: dir, stdio: 'pipe' });
  const selfSigned = (name: string) =>
    ssl(`req -x509 -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.crt -subj /CN=${name} -days 1`);
  const signedByCa = (name: string, extfile = '') => {
    ssl(`req -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.csr -subj /CN=${name}`);
    ssl(`x509 -req -in ${name}.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out ${name}.crt -days 1${extfile}`);
  };
  selfSigned('ca');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  signedByCa('server', ' -extfile san.ext');
  signedByCa('kube-apiserver');
  selfSigned('stranger');
  const pair = (name: string) => ({
    cert: readFileSync(join(dir, `${name}.crt`)),
    key: readFileSync(join(dir, `${name}.key`)),
  });
  return { ca: pair('ca').cert, server: pair('server'), apiServer: pair('kube-apiserver'), stranger: pair('stranger') };
}

describe('admission webhook with a client CA (mTLS, as Kubernetes calls webhooks)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-mtls-'));
  const certs = makeCertificates(dir);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function post(port: number, path: string, client?: { cert: Buffer; key: Buffer }, token?: string) {
    return new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          ca: certs.ca,
          ...client,
          headers: { ...JSON_BODY, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(path === '/validate' ? { request: { uid: 'u', object: cluster } } : { kind: 'Cluster' }));
    });
  }

  it('admits a caller whose certificate the CA signed, and answers 401 to one without or with another', async () => {
    const server = await serveHttpApi(
      handler,
      { host: '127.0.0.1', port: 0, tokens, tls: { ...certs.server, clientCa: certs.ca } },
      log,
    );
    try {
      expect(await post(server.port, '/validate', certs.apiServer)).toBe(200);
      expect(await post(server.port, '/validate')).toBe(401);
      expect(await post(server.port, '/validate', certs.stranger)).toBe(401);
      // a bearer token does not stand in for the webhook's certificate, but the API still takes it
      expect(await post(server.port, '/validate', undefined, ADMIN)).toBe(401);
      expect(await post(server.port, '/api/list', undefined, READER)).toBe(200);
    } finally {
      await server.close();
    }
  });
});
