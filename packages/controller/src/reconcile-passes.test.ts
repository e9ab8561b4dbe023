import { describe, expect, it } from 'vitest';
import { isPassesStopped, ReconcilePasses } from './reconcile-passes.js';

/** A script of steps over one ReconcilePasses; `run:k` begins a reconcile of k, `end:k` ends the one begun last. */
function play(steps: string[]): { begun: number; completed: number } {
  const passes = new ReconcilePasses({ controller: 'test' });
  const running = new Map<string, () => void>();
  for (const step of steps) {
    const [op, key = ''] = step.split(':');
    if (op === 'begin') passes.begin();
    else if (op === 'visit') passes.visit(key);
    else if (op === 'endVisits') passes.endVisits();
    else if (op === 'run') running.set(key, passes.reconcileBegins(key));
    else if (op === 'end') running.get(key)!();
    else if (op === 'stop') passes.stop();
    else throw new Error(`unknown step ${step}`);
  }
  return { begun: passes.begun, completed: passes.completed };
}

describe('ReconcilePasses', () => {
  it.each([
    { name: 'a pass of no keys completes when its visits end', steps: ['begin', 'endVisits'], completed: 1 },
    {
      name: 'a pass completes once each visited key was reconciled',
      steps: ['begin', 'visit:a', 'visit:b', 'endVisits', 'run:a', 'end:a', 'run:b', 'end:b'],
      completed: 1,
    },
    {
      name: 'not while a key is left',
      steps: ['begin', 'visit:a', 'visit:b', 'endVisits', 'run:a', 'end:a'],
      completed: 0,
    },
    {
      name: 'not while the pass still visits keys',
      steps: ['begin', 'visit:a', 'run:a', 'end:a'],
      completed: 0,
    },
    {
      name: 'a reconcile that began before the visit does not count',
      steps: ['run:a', 'begin', 'visit:a', 'endVisits', 'end:a'],
      completed: 0,
    },
    {
      name: '... the run after it does',
      steps: ['run:a', 'begin', 'visit:a', 'endVisits', 'end:a', 'run:a', 'end:a'],
      completed: 1,
    },
    {
      name: 'a key visited again by the next pass counts for both once reconciled',
      steps: ['begin', 'visit:a', 'endVisits', 'begin', 'visit:a', 'endVisits', 'run:a', 'end:a'],
      completed: 2,
    },
    {
      name: '... and neither before it is reconciled',
      steps: ['begin', 'visit:a', 'endVisits', 'begin', 'visit:a', 'endVisits'],
      completed: 0,
    },
    {
      name: 'a key visited again while its reconcile runs: the run completes the first pass only when it ends',
      steps: ['begin', 'visit:a', 'endVisits', 'run:a', 'begin', 'visit:a', 'endVisits'],
      completed: 0,
    },
    {
      name: '... the first pass once it ends, the second after the next run',
      steps: ['begin', 'visit:a', 'endVisits', 'run:a', 'begin', 'visit:a', 'endVisits', 'end:a'],
      completed: 1,
    },
    {
      name: '... both then',
      steps: ['begin', 'visit:a', 'endVisits', 'run:a', 'begin', 'visit:a', 'endVisits', 'end:a', 'run:a', 'end:a'],
      completed: 2,
    },
    {
      name: 'passes complete in order: a later pass waits for an earlier one',
      steps: ['begin', 'visit:a', 'endVisits', 'begin', 'visit:b', 'endVisits', 'run:b', 'end:b'],
      completed: 0,
    },
    {
      name: 'a stop gives up the passes begun; a restart completes its own',
      steps: ['begin', 'visit:a', 'endVisits', 'stop', 'begin', 'visit:b', 'endVisits', 'run:b', 'end:b'],
      completed: 1,
    },
  ])('$name', ({ steps, completed }) => {
    expect(play(steps).completed).toBe(completed);
  });

  it('next() resolves after a pass that begins later has completed, and rejects on stop', async () => {
    const passes = new ReconcilePasses({ controller: 'test' });
    passes.begin();
    passes.visit('a');
    passes.endVisits();
    let resolved = false;
    const next = passes.next().then(() => (resolved = true));
    const done = passes.reconcileBegins('a');
    done(); // completes pass 1, which began before next()
    await Promise.resolve();
    expect(resolved).toBe(false);
    passes.begin();
    passes.endVisits();
    await next;
    expect(resolved).toBe(true);
    const stopped = passes.next();
    passes.stop();
    await expect(stopped).rejects.toSatisfy(isPassesStopped);
  });
});
