import { describe, expect, it } from 'vitest';
import { cpuUsageObject, selectorToCel, validateCpuUsageRule } from './cpu-usage.js';

describe('selectorToCel', () => {
  it.each([
    ['app=web', '((("app" in pod.metadata.labels) && pod.metadata.labels["app"] == "web"))'],
    ['app==web', '((("app" in pod.metadata.labels) && pod.metadata.labels["app"] == "web"))'],
    ['tier!=db', '((!("tier" in pod.metadata.labels) || pod.metadata.labels["tier"] != "db"))'],
    ['canary', '(("canary" in pod.metadata.labels))'],
    ['!canary', '(!("canary" in pod.metadata.labels))'],
    ['app in (web, api)', '((("app" in pod.metadata.labels) && pod.metadata.labels["app"] in ["web", "api"]))'],
    ['app notin (web)', '((!("app" in pod.metadata.labels) || !(pod.metadata.labels["app"] in ["web"])))'],
    [
      'app=web,example.com/tier in (a,b)',
      '((("app" in pod.metadata.labels) && pod.metadata.labels["app"] == "web") && ' +
        '(("example.com/tier" in pod.metadata.labels) && pod.metadata.labels["example.com/tier"] in ["a", "b"]))',
    ],
  ])('%s', (selector, cel) => {
    expect(selectorToCel(selector)).toBe(cel);
  });

  it.each([
    ['', 'selector: must not be empty'],
    ['app=web,', 'has an empty requirement'],
    ['app=we b', 'cannot read requirement'],
    ['app="x"', 'is not a label value'],
    ['-app=x', 'is not a label key'],
    ['app in web', 'cannot read requirement'],
  ])('refuses %j', (selector, message) => {
    expect(() => selectorToCel(selector)).toThrow(message);
  });
});

describe('validateCpuUsageRule', () => {
  it.each([
    [{ namespace: '', selector: 'app=web', milliCpu: 1 }, 'namespace: must not be empty'],
    [{ namespace: 'n', selector: 'app=web', milliCpu: -1 }, 'milliCpu'],
    [{ namespace: 'n', selector: 'app=web', milliCpu: 1.5 }, 'milliCpu'],
    [{ namespace: 'n', selector: 'app=web', milliCpu: Number.NaN }, 'milliCpu'],
    [{ namespace: 'n', selector: ' ', milliCpu: 1 }, 'selector'],
  ])('refuses %j', (rule, message) => {
    expect(() => validateCpuUsageRule(rule)).toThrow(message);
  });
});

describe('cpuUsageObject', () => {
  it('lets the newest matching rule win and falls back to the annotation, then 1m', () => {
    const obj = cpuUsageObject([
      { namespace: 'a', selector: 'app=web', milliCpu: 100 },
      { namespace: 'a', selector: 'app=web,canary', milliCpu: 900 },
    ]) as { spec: { usages: { usage: { cpu: { expression: string } } }[] } };
    const cpu = obj.spec.usages[0]!.usage.cpu.expression;
    expect(cpu.indexOf('Quantity("900m")')).toBeLessThan(cpu.indexOf('Quantity("100m")'));
    expect(cpu.indexOf('Quantity("100m")')).toBeLessThan(cpu.indexOf('kwok.x-k8s.io/usage-cpu'));
    expect(cpu.endsWith('Quantity("1m")))')).toBe(true);
  });
});
