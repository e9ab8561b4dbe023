/** A label selector as read here: Kubernetes' LabelSelector, tolerating `undefined` fields and unknown operators. */
export interface SelectorLike {
  matchLabels?: Readonly<Record<string, string>> | undefined;
  matchExpressions?: readonly RequirementLike[] | undefined;
}
export interface RequirementLike {
  key: string;
  operator: string;
  values?: readonly string[] | undefined;
}

/**
 * Kubernetes label-selector semantics: every matchLabels pair and every matchExpression must hold;
 * an empty selector matches everything. Unknown operators match nothing (as a selector that fails
 * to convert matches nothing upstream).
 */
export function matchesLabelSelector(selector: SelectorLike, labels: Record<string, string> | undefined): boolean {
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

export function matchesRequirement(r: RequirementLike, labels: Record<string, string>): boolean {
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
