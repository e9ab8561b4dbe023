import { parseDuration } from './duration.js';
import { SimulationSpecError } from './errors.js';

/**
 * The CPU demand of one workload in one simulated cluster, in cores, summed over all its pods (the HPA divides it
 * by the ready pods). Written by `flotilla cluster load` into `spec.simulation.loads[].model`.
 *
 * Time origin: `t` is measured from the model's optional `startTime` (RFC 3339). Without one, the periodic models
 * (`sine`, `series`) count from the Unix epoch, so their phase does not move when the agent restarts or another
 * replica takes over, and a 24h period peaks at the same UTC time every day (what a periodic predictor expects);
 * the `step` model counts from the moment the simulator first saw the model, since "step up 10 minutes from now" is
 * what `--step 1,4,10m` means.
 */
export type LoadModel = (
  | { type: 'constant'; cores: number }
  | { type: 'step'; cores: number; stepCores: number; stepAfterMs: number }
  | { type: 'sine'; cores: number; amplitude: number; periodMs: number }
  | { type: 'series'; values: number[]; intervalMs: number }
) & { startTimeMs?: number };

const TYPES = ['constant', 'step', 'sine', 'series'] as const;

function cores(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new SimulationSpecError(path, `expected a non-negative number of cores, got ${JSON.stringify(v)}`);
  return v;
}

function positiveDuration(v: unknown, path: string): number {
  const ms = parseDuration(v, path);
  if (ms <= 0) throw new SimulationSpecError(path, `must be longer than zero, got ${JSON.stringify(v)}`);
  return ms;
}

export function parseLoadModel(raw: unknown, path: string): LoadModel {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new SimulationSpecError(path, 'expected an object with a type');
  const m = raw as Record<string, unknown>;
  let startTimeMs: number | undefined;
  if (m.startTime !== undefined) {
    startTimeMs = typeof m.startTime === 'string' ? Date.parse(m.startTime) : NaN;
    if (Number.isNaN(startTimeMs))
      throw new SimulationSpecError(
        `${path}.startTime`,
        `invalid time ${JSON.stringify(m.startTime)}: expected RFC 3339`,
      );
  }
  const start = startTimeMs === undefined ? {} : { startTimeMs };
  switch (m.type) {
    case 'constant':
      return { type: 'constant', cores: cores(m.cores, `${path}.cores`), ...start };
    case 'step':
      return {
        type: 'step',
        cores: cores(m.cores, `${path}.cores`),
        stepCores: cores(m.stepCores, `${path}.stepCores`),
        stepAfterMs: parseDuration(m.stepAfter, `${path}.stepAfter`),
        ...start,
      };
    case 'sine': {
      const amplitude = m.amplitude;
      if (typeof amplitude !== 'number' || !Number.isFinite(amplitude))
        throw new SimulationSpecError(
          `${path}.amplitude`,
          `expected a number of cores, got ${JSON.stringify(amplitude)}`,
        );
      return {
        type: 'sine',
        cores: cores(m.cores, `${path}.cores`),
        amplitude,
        periodMs: positiveDuration(m.period, `${path}.period`),
        ...start,
      };
    }
    case 'series': {
      if (!Array.isArray(m.values) || m.values.length === 0)
        throw new SimulationSpecError(`${path}.values`, 'expected a non-empty list of cores');
      const values = m.values.map((v, i) => cores(v, `${path}.values[${i}]`));
      return { type: 'series', values, intervalMs: positiveDuration(m.interval, `${path}.interval`), ...start };
    }
    default:
      throw new SimulationSpecError(
        `${path}.type`,
        `unsupported value ${JSON.stringify(m.type)}: supported values: ${TYPES.map((t) => `"${t}"`).join(', ')}`,
      );
  }
}

/** The instant `t = 0` of a model: its startTime, else the epoch (periodic) or when it was first seen (step). */
export function loadOrigin(model: LoadModel, firstSeenMs: number): number {
  if (model.startTimeMs !== undefined) return model.startTimeMs;
  return model.type === 'step' ? firstSeenMs : 0;
}

/** Demand in cores `elapsedMs` after the model's origin; never negative (a sine deeper than its mean floors at 0). */
export function demandAt(model: LoadModel, elapsedMs: number): number {
  switch (model.type) {
    case 'constant':
      return model.cores;
    case 'step':
      return elapsedMs < model.stepAfterMs ? model.cores : model.stepCores;
    case 'sine':
      return Math.max(0, model.cores + model.amplitude * Math.sin((2 * Math.PI * elapsedMs) / model.periodMs));
    case 'series': {
      const n = model.values.length;
      const i = Math.floor(elapsedMs / model.intervalMs);
      return model.values[((i % n) + n) % n]!;
    }
  }
}
