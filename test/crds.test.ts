// deploy/crds/ and the Helm chart's crds/ are generated from packages/api's schemas (`pnpm run gen:crds`): this test
// fails when either drifts from the schemas Flotilla admits with, and checks what the API server requires of them.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { customResourceDefinition, customResourceKinds, renderCrdFiles, type OpenApiSchema } from '@flotilla/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const generated = renderCrdFiles();

describe.each([['deploy/crds'], ['deploy/helm/flotilla/crds']])('%s', (dir) => {
  it('holds exactly the generated CustomResourceDefinitions (run `pnpm run gen:crds` after a schema change)', () => {
    const files = readdirSync(join(root, dir)).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual([...generated.keys()].sort());
    for (const [name, text] of generated) expect(readFileSync(join(root, dir, name), 'utf8'), name).toBe(text);
  });
});

/** Every place in a schema where the API server's structural rules would refuse it, as `path: reason`. */
function structuralProblems(s: OpenApiSchema, at: string): string[] {
  const out: string[] = [];
  if (!s.type && !s['x-kubernetes-preserve-unknown-fields'] && !s['x-kubernetes-int-or-string'])
    out.push(`${at}: no type`);
  if (s.properties && s.additionalProperties) out.push(`${at}: properties and additionalProperties`);
  if (s['x-kubernetes-int-or-string'] && s.type) out.push(`${at}: int-or-string with a type`);
  for (const r of s.required ?? []) if (!s.properties?.[r]) out.push(`${at}: required ${r} is not a property`);
  for (const [k, v] of Object.entries(s.properties ?? {})) out.push(...structuralProblems(v, `${at}.${k}`));
  if (s.items) out.push(...structuralProblems(s.items, `${at}[*]`));
  if (s.additionalProperties) out.push(...structuralProblems(s.additionalProperties, `${at}[*]`));
  if (s.type === 'array' && !s.items) out.push(`${at}: array without items`);
  return out;
}

describe('generated CustomResourceDefinitions', () => {
  it('cover every Karmada and Crane kind Flotilla serves', () => {
    expect(customResourceKinds().map((k) => `${k.apiVersion} ${k.kind}`)).toEqual([
      'cluster.karmada.io/v1alpha1 Cluster',
      'policy.karmada.io/v1alpha1 PropagationPolicy',
      'policy.karmada.io/v1alpha1 ClusterPropagationPolicy',
      'work.karmada.io/v1alpha2 ResourceBinding',
      'work.karmada.io/v1alpha2 ClusterResourceBinding',
      'autoscaling.karmada.io/v1alpha1 FederatedHPA',
      'autoscaling.karmada.io/v1alpha1 CronFederatedHPA',
      'apps.karmada.io/v1alpha1 WorkloadRebalancer',
      'autoscaling.crane.io/v1alpha1 EffectiveHorizontalPodAutoscaler',
    ]);
  });

  it.each(customResourceKinds().map((k) => [k.kind, k] as const))('%s: a structural schema', (_kind, info) => {
    const crd = customResourceDefinition(info) as {
      spec: { versions: { schema: { openAPIV3Schema: OpenApiSchema } }[] };
    };
    expect(structuralProblems(crd.spec.versions[0]!.schema.openAPIV3Schema, '')).toEqual([]);
  });

  it("FederatedHPA has Karmada's columns: REFERENCE-KIND, REFERENCE-NAME, MINPODS, MAXPODS, REPLICAS, AGE", () => {
    const info = customResourceKinds().find((k) => k.kind === 'FederatedHPA')!;
    const crd = customResourceDefinition(info) as {
      spec: { names: { shortNames: string[] }; versions: { additionalPrinterColumns: { name: string }[] }[] };
    };
    expect(crd.spec.names.shortNames).toEqual(['fhpa']);
    expect(crd.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name)).toEqual([
      'REFERENCE-KIND',
      'REFERENCE-NAME',
      'MINPODS',
      'MAXPODS',
      'REPLICAS',
      'AGE',
    ]);
  });

  it("a CronFederatedHPA rule may be named by the proposal's ruleName, which admission renames to name", () => {
    const info = customResourceKinds().find((k) => k.kind === 'CronFederatedHPA')!;
    const crd = customResourceDefinition(info) as {
      spec: { versions: { schema: { openAPIV3Schema: OpenApiSchema } }[] };
    };
    const rule = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!.rules!.items!;
    expect(rule.properties?.ruleName).toEqual({ type: 'string', description: expect.stringMatching(/taken as name/) });
    expect(rule.required).toEqual(['schedule']);
  });
});
