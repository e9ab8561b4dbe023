import { Counter, type Registry } from 'prom-client';

const made = new WeakMap<Registry, InformerMetrics>();

/**
 * What an informer counts, so that a cache that fell behind is seen, not guessed: handler errors, and watch
 * restarts by how they recovered (`resume` from the last revision, or `relist`). One set per registry.
 */
export class InformerMetrics {
  private readonly handlerErrors: Counter<'bucket' | 'kind'>;
  private readonly restarts: Counter<'bucket' | 'kind' | 'recovery'>;
  private readonly undecodableValues: Counter<'bucket' | 'kind'>;

  static of(registry: Registry): InformerMetrics {
    const known = made.get(registry);
    if (known) return known;
    const m = new InformerMetrics(registry);
    made.set(registry, m);
    return m;
  }

  private constructor(registry: Registry) {
    this.handlerErrors = new Counter({
      name: 'flotilla_informer_handler_errors_total',
      help: 'Informer event handlers that threw (logged with the object; the next event went on)',
      labelNames: ['bucket', 'kind'],
      registers: [registry],
    });
    this.restarts = new Counter({
      name: 'flotilla_informer_watch_restarts_total',
      help: 'Informer watches that ended, failed or lost their connection, by recovery (resume or relist)',
      labelNames: ['bucket', 'kind', 'recovery'],
      registers: [registry],
    });
    this.undecodableValues = new Counter({
      name: 'flotilla_informer_undecodable_values_total',
      help: 'Values an informer set aside because they cannot be decoded (not JSON, or gzipped past the bound); logged with the key',
      labelNames: ['bucket', 'kind'],
      registers: [registry],
    });
  }

  handlerFailed(bucket: string, kind: string): void {
    this.handlerErrors.inc({ bucket, kind });
  }

  undecodable(bucket: string, kind: string): void {
    this.undecodableValues.inc({ bucket, kind });
  }

  restarted(bucket: string, kind: string, recovery: 'resume' | 'relist'): void {
    this.restarts.inc({ bucket, kind, recovery });
  }
}
