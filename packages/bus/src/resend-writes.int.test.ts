// Writes sent again as the same message (resend-writes.ts), on a real 3-node JetStream cluster: what the resend rests
// on (the stream answers a second copy of a message id as a duplicate, before it checks an expected last sequence,
// and refuses a copy of one still in process with the code we wait on), and what it is for (a write sent while its
// stream elects a leader is answered once the new leader is, not left to time out).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { eventually, PrivateNatsCluster, scaled } from '@flotilla/testkit';
import { JetStreamErrorCodes } from './errors.js';
import { resendUnansweredWrites } from './resend-writes.js';

let cluster: PrivateNatsCluster;
let nc: NatsConnection;
let js: JetStreamClient;
let kv: KV;
const resent: string[] = [];

beforeAll(async () => {
  cluster = await PrivateNatsCluster.start();
  nc = await connect({ servers: cluster.url.split(','), maxReconnectAttempts: -1 });
  js = jetstream(nc, { timeout: 30_000 });
  resendUnansweredWrites(js, { timeoutMs: 30_000, onResend: (subject) => resent.push(subject) });
  kv = await new Kvm(js).create('resend', { history: 1, replicas: 3 });
}, scaled(60_000));

afterAll(async () => {
  await nc?.close().catch(() => undefined);
  await cluster?.dispose();
});

/** One copy of a message as a resend sends it: the message id, and the revision a compare-and-set expects. */
const copyOf = (key: string, msgID: string, previousSeq: number) => {
  const h = headers();
  h.set('Nats-Expected-Last-Subject-Sequence', String(previousSeq));
  return js.publish(`$KV.resend.${key}`, 'v', { msgID, headers: h });
};

describe('what a resend rests on', () => {
  it('a second copy of a create that landed is answered with the first copy revision, not refused', async () => {
    const first = await copyOf('created', 'create-1', 0);
    const second = await copyOf('created', 'create-1', 0);
    expect(second).toMatchObject({ seq: first.seq, duplicate: true });
    // Another message with the same expectation is a real conflict.
    await expect(copyOf('created', 'create-2', 0)).rejects.toSatisfy(
      (err) => err instanceof JetStreamApiError && err.code === JetStreamErrorCodes.StreamWrongLastSequence,
    );
  });

  it('a compare-and-set sent twice is written once', async () => {
    const at = await kv.put('cas', 'a');
    const first = await copyOf('cas', 'cas-1', at);
    expect(await copyOf('cas', 'cas-1', at)).toMatchObject({ seq: first.seq, duplicate: true });
    expect((await kv.get('cas'))?.revision).toBe(first.seq);
  });

  it('copies sent together: one is written, and the stream refuses the others with the code the resend waits on', async () => {
    const answers = await Promise.allSettled([0, 1, 2].map(() => copyOf('together', 'together-1', 0)));
    const written = answers.filter((a) => a.status === 'fulfilled');
    expect(written.length).toBeGreaterThanOrEqual(1);
    for (const a of answers)
      if (a.status === 'rejected')
        expect((a.reason as JetStreamApiError).code).toBe(JetStreamErrorCodes.DuplicateMessageInProcess);
    expect(new Set(written.map((a) => a.value.seq)).size).toBe(1);
  });
});

describe('a write sent while its stream elects a leader', () => {
  it(
    'is answered once the new leader is, well inside its timeout, and written once',
    async () => {
      const stream = 'KV_resend';
      const before = await kv.put('during-election', 'before');
      const leader = await eventually(() => cluster.streamLeader(stream), 10_000, 'a leader of the bucket');
      await cluster.kill(leader);
      resent.length = 0;
      // Without a resend this fails at once ("no responders": no leader takes it) or waits out its 30 s unanswered.
      const revision = await kv.update('during-election', 'after', before);
      expect(resent.length).toBeGreaterThan(0);
      // Read until a replica that has caught up answers (a direct get may be served by a follower still behind); a
      // second copy written would have left a later revision there.
      const stored = await eventually(
        async () => {
          const e = await kv.get('during-election');
          return e && e.revision >= revision ? e : undefined;
        },
        10_000,
        'the update on the replica that answers',
      );
      expect(stored.revision).toBe(revision);
      expect(new TextDecoder().decode(stored.value)).toBe('after');
      await cluster.restart(leader);
      await cluster.waitHealthy();
    },
    scaled(60_000),
  );
});
