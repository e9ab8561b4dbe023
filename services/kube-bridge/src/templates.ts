import { findMatchingPolicy, type PropagationPolicy, type ResourceTemplate } from '@flotilla/scheduling';
import type { AnyObject } from './content.js';

/**
 * Whether a resource template is one the bridge mirrors: a PropagationPolicy or ClusterPropagationPolicy of either
 * side selects it, as Karmada's detector would (the template's namespace for namespaced policies).
 */
export function isSelectedTemplate(template: AnyObject, policies: readonly AnyObject[]): boolean {
  return findMatchingPolicy(template as ResourceTemplate, policies as PropagationPolicy[]) !== undefined;
}
