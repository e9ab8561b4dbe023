import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpMethod, RawObjectApi } from './raw-object-api.js';

// A plain HTTP server standing in for the network only: it records each request and answers what the test says.
// What is checked is client-node's side of the wire (paths, query, headers, body) and what comes back.
interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}
let server: http.Server;
let api: RawObjectApi;
const seen: Seen[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  api = kc.makeApiClient(RawObjectApi);
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('RawObjectApi.send', () => {
  it("returns the JSON as sent: a list keeps its `continue` and fields client-node's models do not know", async () => {
    const list = {
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPAList',
      metadata: { resourceVersion: '42', continue: 'next-page' },
      items: [{ metadata: { name: 'a' }, spec: { anything: { nested: [1, 2] } } }],
    };
    answer = { status: 200, body: JSON.stringify(list) };
    const got = await api.send(HttpMethod.GET, '/apis/autoscaling.karmada.io/v1alpha1/cronfederatedhpas', {
      query: { limit: 500, continue: 'this-page', labelSelector: undefined },
    });
    expect(got).toEqual(list);
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/apis/autoscaling.karmada.io/v1alpha1/cronfederatedhpas?limit=500&continue=this-page',
    });
  });

  it('sends the body as JSON with the content type asked for', async () => {
    answer = { status: 200, body: '{"metadata":{"name":"a","resourceVersion":"43"}}' };
    const body = { metadata: { resourceVersion: '42', finalizers: ['x'] } };
    const got = await api.send(HttpMethod.PATCH, '/apis/g/v1/namespaces/default/things/a', {
      body,
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'flotilla', force: true },
    });
    expect(got).toEqual({ metadata: { name: 'a', resourceVersion: '43' } });
    expect(seen.at(-1)).toEqual({
      method: 'PATCH',
      url: '/apis/g/v1/namespaces/default/things/a?fieldManager=flotilla&force=true',
      contentType: 'application/merge-patch+json',
      body: JSON.stringify(body),
    });
  });

  it("an error status is client-node's ApiException, with the code", async () => {
    answer = {
      status: 409,
      body: JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409, message: 'changed' }),
    };
    const err = await api.send(HttpMethod.PUT, '/apis/g/v1/things/a', { body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(409);
  });
});
