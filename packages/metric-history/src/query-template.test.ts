import { describe, expect, it } from 'vitest';
import { CRANE_WORKLOAD_CPU_QUERY, renderQuery, SIM_WORKLOAD_CPU_QUERY } from './query-template.js';

const web = { namespace: 'default', kind: 'Deployment', name: 'web.v2' };

describe('renderQuery', () => {
  it("fills Crane's default workload query, matching the name literally in the pod regex", () => {
    expect(renderQuery(CRANE_WORKLOAD_CPU_QUERY, web)).toBe(
      'sum(irate(container_cpu_usage_seconds_total{namespace="default",pod=~"^web\\\\.v2-[a-z0-9]+-[a-z0-9]{5}$",container!="",container!="POD"}[3m]))',
    );
  });

  it('fills the simulated clusters query', () => {
    expect(renderQuery(SIM_WORKLOAD_CPU_QUERY, web)).toBe(
      'sum(flotilla_sim_workload_cpu_usage_cores{namespace="default",kind="Deployment",workload="web.v2"})',
    );
  });

  it('escapes quotes and backslashes so a value cannot end the string literal', () => {
    expect(renderQuery('{{name}}', { ...web, name: 'a"b\\c' })).toBe('a\\"b\\\\c');
  });

  it('refuses a placeholder it does not know', () => {
    expect(() => renderQuery('up{job="{{job}}"}', web)).toThrow(
      expect.objectContaining({ name: 'QueryTemplateError', placeholder: 'job' }),
    );
  });
});
