import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@flotilla/client';
import type { KubeObject } from '@flotilla/api';
import type { CliIo, Session } from '../context.js';
import { errorText } from '../errors.js';
import { waitCommand } from './wait.js';

/** A gateway that answers each get with the next of `answers` (the last repeats): an object, or NotFound. */
function session(answers: Array<KubeObject | 'missing'>): { s: Session; gets: () => number } {
  let gets = 0;
  const client = {
    get: async (kind: string, name: string) => {
      const a = answers[Math.min(gets++, answers.length - 1)];
      if (a === 'missing') throw new NotFoundError({ reason: 'NotFound', message: `${kind} "${name}" not found` });
      return a;
    },
  };
  return { s: { client } as unknown as Session, gets: () => gets };
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    readStdin: async () => '',
    now: () => new Date(),
    env: {},
  };
  return { cli, out, err };
}

const cluster = (ready: string) =>
  ({
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: 'member1' },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: ready }] },
  }) as unknown as KubeObject;

// kubectl wait: a missing object is NotFound at once for a condition; --for=delete on it succeeds at once.
describe('flotilla wait', () => {
  it('fails at once with NotFound when the object to wait on does not exist', async () => {
    const { s, gets } = session(['missing']);
    const { cli } = io();
    const started = Date.now();
    const failure = await waitCommand(cli, s, {
      target: 'cluster/member9',
      for: 'condition=Ready',
      timeout: '30s',
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(gets()).toBe(1);
    expect(errorText(failure)).toBe('Error from server (NotFound): Cluster "member9" not found');
  });

  it('succeeds at once on --for=delete when the object never existed, saying so', async () => {
    const { s } = session(['missing']);
    const { cli, out } = io();
    expect(await waitCommand(cli, s, { target: 'cluster/member9', for: 'delete', timeout: '30s' })).toBe(0);
    expect(out).toEqual(['cluster/member9 does not exist: nothing to wait for']);
  });

  it('reports deleted when an existing object goes away', async () => {
    const { s } = session([cluster('True'), 'missing']);
    const { cli, out } = io();
    expect(await waitCommand(cli, s, { target: 'cluster/member1', for: 'delete', timeout: '30s' })).toBe(0);
    expect(out).toEqual(['cluster/member1 deleted']);
  });

  it('waits on --for=create until the object exists, and says the condition is met', async () => {
    const { s, gets } = session(['missing', 'missing', cluster('False')]);
    const { cli, out } = io();
    expect(await waitCommand(cli, s, { target: 'cluster/member1', for: 'create', timeout: '30s' })).toBe(0);
    expect(out).toEqual(['cluster/member1 condition met']);
    expect(gets()).toBe(3);
  });

  it('times out on --for=create when the object never comes', async () => {
    const { s } = session(['missing']);
    const { cli, err } = io();
    expect(await waitCommand(cli, s, { target: 'cluster/member9', for: 'create', timeout: '300ms' })).toBe(1);
    expect(err).toEqual(['error: timed out waiting for the condition on clusters/member9']);
  });

  it('waits until the condition holds', async () => {
    const { s, gets } = session([cluster('False'), cluster('True')]);
    const { cli, out } = io();
    expect(await waitCommand(cli, s, { target: 'cluster/member1', for: 'condition=Ready', timeout: '30s' })).toBe(0);
    expect(out).toEqual(['cluster/member1 condition met']);
    expect(gets()).toBe(2);
  });
});
