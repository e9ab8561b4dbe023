/** A Cluster's `spec.simulation` (or an HPA the simulator reads) is malformed; `path` names the field. */
export class SimulationSpecError extends Error {
  override readonly name = 'SimulationSpecError';

  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}
