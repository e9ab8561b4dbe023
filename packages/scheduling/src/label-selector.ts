import type { LabelSelector, LabelSelectorRequirement } from './types.js';

/**
 * Kubernetes label-selector semantics: every matchLabels pair and every matchExpression must hold;
 * an empty selector matches everything. Unknown operators match nothing (as a selector that fails
 * to convert matches nothing upstream).
 */
export function matchesLabelSelector(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const ls = labels ?? {};
  const ml = selector.matchLabels;
  if (ml) {
    for (const k in ml) if (ls[k] !== ml[k]) return false;
  }
  const me = selector.matchExpressions;
  if (me) {
    for (const r of me) if (!matchesRequirement(r, ls)) return false;
  }
  return true;
}

export function matchesRequirement(r: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(labels[r.key]!);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(labels[r.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}
