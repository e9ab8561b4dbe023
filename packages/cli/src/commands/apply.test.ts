import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionError, admit } from '@flotilla/api';
import { apiErrorFrom, type GatewayClient, type StoredLike } from '@flotilla/client';
import type { CliIo, Session } from '../context.js';
import { main } from '../main.js';
import { applyCommand } from './apply.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flotilla-apply-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function captureIo(stdin = ''): CliIo & { outs: string[]; errs: string[] } {
  const outs: string[] = [];
  const errs: string[] = [];
  return {
    outs,
    errs,
    out: (t) => void outs.push(t),
    err: (t) => void errs.push(t),
    readStdin: async () => stdin,
    now: () => new Date(),
    // Nothing listens here: a command that connects fails loudly instead of passing by accident.
    env: { NATS_URL: 'nats://127.0.0.1:1' },
  };
}

/**
 * A session whose gateway runs the real admission and answers as the gateway does (Invalid with causes); what it
 * admitted is recorded in `applied`.
 */
function admittingSession(applied: string[]): () => Promise<Session> {
  const client = {
    apply: async (object: unknown) => {
      try {
        const o = admit(object) as StoredLike;
        applied.push(o.metadata.name);
        return { object: o, outcome: 'created' as const };
      } catch (err) {
        if (!(err instanceof AdmissionError)) throw err;
        throw apiErrorFrom({ reason: 'Invalid', message: err.message, causes: err.causes });
      }
    },
  } as unknown as GatewayClient;
  return async () => ({ bus: undefined as never, client });
}

const configMap = (name: string, extra = '') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: ${name} }\n${extra}`;

describe('flotilla apply -f: input that names nothing to apply', () => {
  it.each<[title: string, text: string]>([
    ['an empty file', ''],
    ['only ---', '---\n'],
    ['several ---', '---\n---\n...\n'],
    ['only a comment', '# nothing yet\n'],
  ])('%s exits 1 with kubectl’s "no objects passed to apply"', async (_t, text) => {
    const file = join(dir, `empty-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, text);
    for (const args of [
      ['apply', '-f', file],
      ['apply', '-f', '-'],
    ]) {
      const io = captureIo(text);
      expect(await main(args, io)).toBe(1);
      expect(io.errs.join('\n')).toMatch(/error: no objects passed to apply/);
    }
  });
});

describe('flotilla apply -f: numbers JSON cannot carry', () => {
  it.each<[title: string, value: string]>([
    ['.nan', '.nan'],
    ['.inf', '.inf'],
    ['-.inf', '-.inf'],
    ['1e309', '1e309'],
  ])('%s is refused naming the document and field, before anything is sent', async (_t, value) => {
    const io = captureIo(`${configMap('a')}---\n${configMap('b', `data: { n: ${value} }\n`)}`);
    expect(await main(['apply', '-f', '-'], io)).toBe(1);
    expect(io.errs.join('\n')).toMatch(/document 2.*data\.n.*must be a finite number/);
    expect(io.outs).toEqual([]);
  });
});

describe('flotilla apply -f: several documents, some invalid', () => {
  it('applies the valid ones, prints an error per invalid one, and exits 1 (as kubectl does)', async () => {
    const text = [
      configMap('first'),
      configMap('Bad_Name'),
      configMap('second'),
      configMap('third', 'metadata: { name: third, labels: { "-x": y } }\n').replace(
        /metadata: \{ name: third \}\n/,
        '',
      ),
    ].join('---\n');
    const io = captureIo(text);
    const applied: string[] = [];
    expect(await applyCommand(io, admittingSession(applied), { filename: ['-'], dryRun: false })).toBe(1);
    expect(applied).toEqual(['first', 'second']);
    expect(io.outs).toEqual(['configmap/first created', 'configmap/second created']);
    expect(io.errs).toEqual([
      expect.stringMatching(/^Error from server \(Invalid\): ConfigMap "Bad_Name" is invalid: metadata\.name/),
      expect.stringMatching(/^Error from server \(Invalid\): ConfigMap "third" is invalid: metadata\.labels/),
    ]);
  });
});
