import { autoscalerRows, parseManifests, type PreviewAnswer, previewRows, previewUnknowns } from '../view/index.js';
import type { Taint } from '@flotilla/api';
import { call } from './api.js';
import { errorText, heading, type Page, type PageContext } from './context.js';
import { h, table } from './dom.js';

type ClusterObject = {
  metadata: { name: string };
  spec?: { taints?: Taint[]; simulation?: Record<string, unknown> };
  status?: unknown;
};

/** Karmada's cordon taint, as the scheduler's filters read it (packages/scheduling UNSCHEDULABLE_TAINT). */
const CORDON: Taint = { key: 'cluster.karmada.io/unschedulable', effect: 'NoSchedule' };
const TAINT = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/;

/**
 * Preview: paste YAML or pick a cluster action, see what it would move (the gateway's `preview` operation, the
 * scheduler's own decisions on the live state, what `flotilla what-if ... --live` prints) and only then apply it.
 * Apply is offered for the change previewed, and asks first; editing the change hides the previous answer.
 */
export const previewPage: Page = async (ctx) => {
  const result = h('div', { class: 'preview-result', 'data-testid': 'preview-result' });
  const yaml = h('textarea', {
    id: 'preview-yaml',
    rows: 14,
    spellcheck: 'false',
    placeholder: 'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n…',
  }) as HTMLTextAreaElement;
  const { items } = await call<{ items: ClusterObject[] }>('list', { kind: 'Cluster' });
  const cluster = h(
    'select',
    { id: 'preview-cluster' },
    ...items.map((c) => h('option', { value: c.metadata.name }, c.metadata.name)),
  ) as HTMLSelectElement;
  const action = h(
    'select',
    { id: 'preview-action' },
    h('option', { value: 'fail' }, 'fail'),
    h('option', { value: 'cordon' }, 'cordon'),
    h('option', { value: 'taint' }, 'taint'),
  ) as HTMLSelectElement;
  const taint = h('input', { id: 'preview-taint', placeholder: 'KEY[=VALUE]:EFFECT', autocomplete: 'off' });
  for (const el of [yaml, cluster, action, taint]) el.addEventListener('input', () => result.replaceChildren());

  const previewYaml = async () => {
    let objects: Array<Record<string, unknown>>;
    try {
      objects = parseManifests(yaml.value);
    } catch (err) {
      return ctx.notify(errorText(err), 'error');
    }
    await show(ctx, result, { objects }, async () => {
      for (const object of objects) await call('apply', { object });
      return `${objects.length} object${objects.length === 1 ? '' : 's'} applied`;
    });
  };
  const previewCluster = async () => {
    const name = cluster.value;
    const a = action.value as 'fail' | 'cordon' | 'taint';
    const req = { action: a, name, ...(a === 'taint' ? { taint: (taint as HTMLInputElement).value } : {}) };
    await show(ctx, result, { cluster: req }, () => applyClusterAction(name, a, (taint as HTMLInputElement).value));
  };

  ctx.main.replaceChildren(
    heading('Preview'),
    h(
      'p',
      {},
      'What a change would move, decided by the scheduler on the live state; nothing is written until you press Apply.',
    ),
    h(
      'form',
      {
        class: 'preview-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void previewYaml();
        },
      },
      h('label', { for: 'preview-yaml' }, 'Objects to apply (YAML, documents separated by ---)'),
      yaml,
      h('button', { type: 'submit' }, 'Preview apply'),
    ),
    h(
      'form',
      {
        class: 'preview-form',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void previewCluster();
        },
      },
      h('label', { for: 'preview-cluster' }, 'Cluster '),
      cluster,
      h('label', { for: 'preview-action' }, ' action '),
      action,
      h('label', { for: 'preview-taint' }, ' taint (for taint) '),
      taint,
      h('button', { type: 'submit' }, 'Preview cluster action'),
    ),
    result,
  );
};

/** Asks the gateway, draws the moves, and offers Apply for exactly what was previewed. */
async function show(ctx: PageContext, into: HTMLElement, req: object, apply: () => Promise<string>): Promise<void> {
  let p: PreviewAnswer;
  try {
    p = await call<PreviewAnswer>('preview', req);
  } catch (err) {
    into.replaceChildren();
    return ctx.failed(err);
  }
  const rows = previewRows(p);
  const scalers = autoscalerRows(p);
  const unknowns = previewUnknowns(p);
  const applyButton = h(
    'button',
    {
      type: 'button',
      class: 'danger',
      onclick: async () => {
        if (!(await ctx.confirm('Apply the change previewed? The moves above will happen.', 'Apply'))) return;
        try {
          ctx.notify(await apply());
          into.replaceChildren();
        } catch (err) {
          ctx.notify(errorText(err), 'error');
        }
      },
    },
    'Apply',
  );
  const parts: Array<Node | null> = [
    rows.length
      ? table(
          `${rows.length} binding${rows.length === 1 ? '' : 's'} would change`,
          ['Binding', 'Outcome', 'At', 'Before', 'After', 'Group', 'Rejected'],
          rows.map((r) => [
            h('span', { class: 'name' }, r.binding),
            r.outcome,
            r.at,
            r.before,
            r.after,
            r.group,
            r.rejected,
          ]),
          { class: 'preview', 'data-testid': 'preview-moves' },
        )
      : h('p', { 'data-testid': 'preview-moves' }, 'Nothing moves.'),
    scalers.length
      ? table(
          'Autoscalers',
          ['Autoscaler', 'Rule', 'Target', 'At', 'Replicas', 'Reason'],
          scalers.map((r) => [r.autoscaler, r.rule, r.target, r.at, r.replicas, r.reason]),
          { class: 'preview', 'data-testid': 'preview-autoscalers' },
        )
      : null,
    unknowns.length
      ? h(
          'details',
          {},
          h('summary', {}, 'What the preview cannot know'),
          h('ul', {}, ...unknowns.map((u) => h('li', {}, u))),
        )
      : null,
    applyButton,
  ];
  into.replaceChildren(...parts.filter((n): n is Node => n !== null));
}

/** The cluster action itself, as the CLI and the Clusters page do it: the Cluster read, changed and applied. */
async function applyClusterAction(name: string, action: 'fail' | 'cordon' | 'taint', taint: string): Promise<string> {
  const c = await call<ClusterObject>('get', { kind: 'Cluster', name });
  const { status: _status, ...rest } = c;
  let spec = { ...c.spec };
  if (action === 'fail') {
    if (!c.spec?.simulation) throw new Error(`cluster ${name} is not simulated: fail it where it runs`);
    spec = { ...spec, simulation: { ...c.spec.simulation, failed: true } };
  } else {
    const m = action === 'taint' ? TAINT.exec(taint) : null;
    const t =
      action === 'cordon'
        ? CORDON
        : m
          ? { key: m[1]!, ...(m[2] !== undefined ? { value: m[2] } : {}), effect: m[3] as Taint['effect'] }
          : null;
    if (!t) throw new Error(`taint: expected KEY[=VALUE]:EFFECT, not "${taint}"`);
    const kept = (spec.taints ?? []).filter((x) => !(x.key === t.key && x.effect === t.effect));
    spec = { ...spec, taints: [...kept, t] };
  }
  await call('apply', { object: { ...rest, spec } });
  return `cluster/${name} ${action === 'fail' ? 'failed' : action === 'cordon' ? 'cordoned' : 'tainted'}`;
}
