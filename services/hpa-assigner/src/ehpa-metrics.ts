import { perRegistry } from '@flotilla/runtime';
import { Gauge, type Registry } from 'prom-client';

/**
 * How good each EffectiveHPA's forecasts have been: the mean absolute percentage error of what was forecast for the
 * last prediction window against what the history then recorded, as a ratio (0.08 is 8 %). Only EffectiveHPAs with
 * an error to show have a series; the leader's controller sets them and removes them when it stops.
 */
export class EhpaMetrics {
  readonly forecastError: Gauge<'namespace' | 'name'>;

  static readonly of = perRegistry((registry) => new EhpaMetrics(registry));

  private constructor(registry: Registry) {
    this.forecastError = new Gauge({
      name: 'flotilla_ehpa_forecast_error_ratio',
      help: "Mean absolute percentage error (a ratio) of an EffectiveHPA's forecasts over its last prediction window against the observed usage",
      labelNames: ['namespace', 'name'],
      registers: [registry],
    });
  }
}
