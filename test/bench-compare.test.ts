import { describe, expect, it } from 'vitest';
import { compareFigures, formatComparison, medianFigures, parseFigures } from '../bench/compare/figures.js';

const output = `
[scheduler-e2e] suite up on prefix e2e-1

scheduling end to end: Divided (dynamic weight) over 100 simulated clusters
  burst                            10000 Deployments, 64 in flight: applies took 58,414 ms (171/s)
  burst end-to-end rate            155 bindings/s (first apply -> last BindingScheduled)
  end to end / bare CAS            8.3 %  (target >= 50 %)
  burst apply-to-BindingScheduled  p50 8,024 ms, p99 13,941 ms, max 14,267 ms (n=10000)
  scheduler leadership lost        none
  burst CPU by service             gateway 3.0 s, member-agent 6.2 s, this bench's client 1.4 s, the rest (NATS, anything else) 3.5 s
  stream writes per binding        8.14 (objects 2.00, kube-events 1.14; every write naming a burst object)
`;

describe('bench figures', () => {
  it("reads each row's first number under its title, and a latency row's p99", () => {
    const f = parseFigures(output);
    const t = 'scheduling end to end: Divided (dynamic weight) over 100 simulated clusters';
    expect([...f.entries()]).toEqual([
      [`${t} / burst`, 10000],
      [`${t} / burst end-to-end rate`, 155],
      [`${t} / end to end / bare CAS`, 8.3],
      [`${t} / burst apply-to-BindingScheduled p99`, 13941],
      [`${t} / burst apply-to-BindingScheduled / p50`, 8024],
      [`${t} / burst apply-to-BindingScheduled / p99`, 13941],
      [`${t} / burst apply-to-BindingScheduled / max`, 14267],
      // A list of named numbers gives each (the first number of the row is the gateway's alone).
      [`${t} / burst CPU by service`, 3],
      [`${t} / burst CPU by service / gateway`, 3],
      [`${t} / burst CPU by service / member-agent`, 6.2],
      [`${t} / burst CPU by service / this bench's client`, 1.4],
      [`${t} / stream writes per binding`, 8.14],
      [`${t} / stream writes per binding / objects`, 2],
      [`${t} / stream writes per binding / kube-events`, 1.14],
    ]);
  });

  it('takes the median of each figure over runs, and the ratio HEAD/REF of those both printed', () => {
    const runs = (xs: number[]) => xs.map((x) => new Map([['rate', x]]));
    expect(medianFigures(runs([3, 1, 2])).get('rate')).toBe(2);
    expect(medianFigures(runs([4, 1, 2, 3])).get('rate')).toBe(2.5);
    const rows = compareFigures(
      new Map([
        ['rate', 100],
        ['zero', 0],
        ['gone', 1],
      ]),
      new Map([
        ['rate', 150],
        ['zero', 3],
        ['new', 2],
      ]),
    );
    expect(rows).toEqual([
      { figure: 'rate', ref: 100, head: 150, ratio: 1.5 },
      { figure: 'zero', ref: 0, head: 3, ratio: undefined },
    ]);
    expect(formatComparison(rows, 'main~1')).toMatch(/rate\s+100\s+150\s+1\.50\n/);
  });
});
