import { describe, expect, it } from 'vitest';
import { escapeToken, eventFilter, eventSubject, parseEventSubject, SubjectError, unescapeToken } from './subjects.js';
import { busNames, InvalidPrefixError } from './names.js';

describe('subject tokens', () => {
  it.each([
    ['web', 'web'],
    ['web.v2', 'web%2Ev2'],
    ['a_b', 'a%5Fb'],
    ['50%', '50%25'],
    ['*', '%2A'],
    ['>', '%3E'],
    ['é', '%C3%A9'],
  ])('%j <-> %j', (raw, escaped) => {
    expect(escapeToken(raw)).toBe(escaped);
    expect(unescapeToken(escaped)).toBe(raw);
  });

  it('builds and parses the documented grammar', () => {
    const s = eventSubject('flotilla.events', {
      kind: 'ResourceBinding',
      namespace: 'default',
      name: 'web.v2-deployment',
      type: 'BindingScheduled',
    });
    expect(s).toBe('flotilla.events.ResourceBinding.default.web%2Ev2-deployment.BindingScheduled');
    expect(parseEventSubject('flotilla.events', s)).toEqual({
      kind: 'ResourceBinding',
      namespace: 'default',
      name: 'web.v2-deployment',
      type: 'BindingScheduled',
    });
  });

  it('uses _ for cluster-scoped objects', () => {
    const s = eventSubject('p.events', { kind: 'Cluster', name: 'member1', type: 'ClusterStatusReported' });
    expect(s).toBe('p.events.Cluster._.member1.ClusterStatusReported');
    expect(parseEventSubject('p.events', s).namespace).toBeUndefined();
  });

  it('rejects subjects outside the grammar', () => {
    expect(() => parseEventSubject('p.events', 'q.events.a.b.c.d')).toThrow(SubjectError);
    expect(() => parseEventSubject('p.events', 'p.events.a.b.c')).toThrow(SubjectError);
  });

  it('builds filters with wildcards for omitted parts', () => {
    expect(eventFilter('p.events')).toBe('p.events.>');
    expect(eventFilter('p.events', { kind: 'Cluster', namespace: '', name: 'm1' })).toBe('p.events.Cluster._.m1.*');
    expect(eventFilter('p.events', { kind: 'ResourceBinding' })).toBe('p.events.ResourceBinding.*.*.*');
    expect(eventFilter('p.events', { type: 'BindingScheduled' })).toBe('p.events.*.*.*.BindingScheduled');
  });
});

describe('busNames', () => {
  it('derives every name from the prefix', () => {
    expect(busNames('t-1')).toMatchObject({
      eventsStream: 'T_1_EVENTS',
      eventsRoot: 't-1.events',
      objectsBucket: 't-1-objects',
      apiRoot: 't-1.api',
    });
  });
  it.each(['', 'Upper', 'a.b', 'a b', '-x'])('rejects prefix %j', (p) => {
    expect(() => busNames(p)).toThrow(InvalidPrefixError);
  });
});
