import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CrdSchemaError, customResourceDefinition, customResourceKinds, type OpenApiSchema, toOpenApi } from './crd.js';
import { resolveKind } from './registry.js';

describe('toOpenApi', () => {
  it('maps zod shapes to structural OpenAPI', () => {
    const schema = z.strictObject({
      name: z.string().min(1),
      count: z.int().optional(),
      ratio: z.number(),
      mode: z.enum(['A', 'B']),
      effect: z.union([z.enum(['X']), z.literal('')]).optional(),
      quantity: z.union([z.string(), z.number()]),
      labels: z.record(z.string(), z.string()).optional(),
      anything: z.unknown(),
      kept: z.looseObject({ a: z.boolean() }).optional(),
      when: z.union([z.string(), z.null()]).optional(),
    });
    expect(toOpenApi(schema)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        count: { type: 'integer', format: 'int64' },
        ratio: { type: 'number' },
        mode: { type: 'string', enum: ['A', 'B'] },
        effect: { type: 'string', enum: ['X', ''] },
        quantity: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        anything: { 'x-kubernetes-preserve-unknown-fields': true },
        kept: {
          type: 'object',
          properties: { a: { type: 'boolean' } },
          required: ['a'],
          'x-kubernetes-preserve-unknown-fields': true,
        },
        when: { type: 'string', nullable: true },
      },
      required: ['name', 'ratio', 'mode', 'quantity'],
    });
  });

  it('joins the variants of a discriminated union into one object', () => {
    const schema = z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('a'), x: z.number() }),
      z.strictObject({ type: z.literal('b'), y: z.string() }),
    ]);
    expect(toOpenApi(schema)).toEqual({
      type: 'object',
      properties: { type: { type: 'string', enum: ['a', 'b'] }, x: { type: 'number' }, y: { type: 'string' } },
      required: ['type'],
    });
  });

  it("carries each field's .describe() text, set inside or outside optional()", () => {
    const schema = z.strictObject({
      outside: z.string().optional().describe('Set on the optional wrapper.'),
      inside: z.int().describe('Set on the field itself.').optional(),
      rules: z.array(z.strictObject({ a: z.boolean() })).describe('A list.'),
      plain: z.string(),
    });
    expect(toOpenApi(schema).properties).toEqual({
      outside: { description: 'Set on the optional wrapper.', type: 'string' },
      inside: { description: 'Set on the field itself.', type: 'integer', format: 'int64' },
      rules: {
        description: 'A list.',
        type: 'array',
        items: { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] },
      },
      plain: { type: 'string' },
    });
  });

  it("describes the fields users set on Karmada's and Crane's kinds", () => {
    const crd = customResourceDefinition(resolveKind('CronFederatedHPA')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: OpenApiSchema } }> };
    };
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!;
    const rule = spec.properties!.rules!.items!;
    for (const field of ['name', 'schedule', 'targetReplicas', 'targetMinReplicas', 'timeZone', 'suspend'])
      expect(rule.properties![field]!.description, field).toMatch(/\w/);
    expect(spec.properties!.scaleTargetRef!.description).toMatch(/FederatedHPA/);
  });

  it("describes WorkloadRebalancer's fields as Karmada's API does", () => {
    const crd = customResourceDefinition(resolveKind('WorkloadRebalancer')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: OpenApiSchema } }> };
    };
    const root = crd.spec.versions[0]!.schema.openAPIV3Schema.properties!;
    const spec = root.spec!;
    expect(spec.description).toBe('Spec represents the specification of the desired behavior of WorkloadRebalancer.');
    expect(spec.properties!.workloads!.description).toMatch(/^Workloads used to specify the list of expected resource/);
    expect(spec.properties!.ttlSecondsAfterFinished!.description).toMatch(
      /^TTLSecondsAfterFinished limits the lifetime of a WorkloadRebalancer that has finished execution/,
    );
    const workload = spec.properties!.workloads!.items!;
    expect(workload.description).toBe('ObjectReference the expected resource.');
    expect(
      Object.fromEntries(Object.entries(workload.properties!).map(([k, v]) => [k, v.description?.split('.')[0]])),
    ).toEqual({
      apiVersion: 'APIVersion represents the API version of the target resource',
      kind: 'Kind represents the Kind of the target resource',
      name: 'Name of the target resource',
      namespace: 'Namespace of the target resource',
    });
    const status = root.status!;
    expect(status.description).toBe('Status represents the status of WorkloadRebalancer.');
    expect(status.properties!.finishTime!.description).toBe('FinishTime represents the finish time of rebalancer.');
    expect(status.properties!.observedWorkloads!.items!.properties!.workload!.description).toBe(
      'Workload the observed resource.',
    );
  });

  it('describes every field of every kind, so kubectl explain has something to say', () => {
    /** Field paths under `s` without a description (list items and map values are described by their field). */
    const undescribed = (s: OpenApiSchema, path: string): string[] => [
      ...Object.entries(s.properties ?? {}).flatMap(([k, v]) => [
        ...(v.description ? [] : [`${path}.${k}`]),
        ...undescribed(v, `${path}.${k}`),
      ]),
      ...(s.items ? undescribed(s.items, `${path}[]`) : []),
      ...(typeof s.additionalProperties === 'object' ? undescribed(s.additionalProperties, `${path}{}`) : []),
    ];
    const missing = customResourceKinds().flatMap((info) => {
      const crd = customResourceDefinition(info) as {
        spec: { versions: Array<{ schema: { openAPIV3Schema: OpenApiSchema } }> };
      };
      const root = crd.spec.versions[0]!.schema.openAPIV3Schema;
      // metadata is ObjectMeta, which the API server describes itself (controller-gen leaves it bare too).
      const { metadata: _objectMeta, ...fields } = root.properties!;
      return undescribed({ properties: fields }, info.kind);
    });
    expect(missing).toEqual([]);
  });

  it('refuses what has no structural schema, naming the field', () => {
    expect(() => toOpenApi(z.strictObject({ spec: z.strictObject({ t: z.tuple([z.string()]) }) }))).toThrow(
      new CrdSchemaError('spec.t', 'zod type "tuple" has no structural schema'),
    );
    expect(() => toOpenApi(z.strictObject({ v: z.union([z.string(), z.boolean()]) }))).toThrow(CrdSchemaError);
  });
});
