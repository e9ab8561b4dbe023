/** Identity of a kind: how it is named on the wire and on the command line. */
export interface KindInfo {
  /** API group; "" for the core group. */
  group: string;
  version: string;
  /** `group/version`, or just `version` for the core group. */
  apiVersion: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  /** True when Flotilla validates the whole object; false for generic templates (only metadata and spec.replicas). */
  strict: boolean;
}
