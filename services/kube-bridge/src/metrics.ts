import { ControllerMetrics } from '@flotilla/controller';
import { perRegistry } from '@flotilla/runtime';
import { Counter, type Registry } from 'prom-client';

/** The bridge's own metrics beside those the controller kit keeps (reconciles, queue depth and age). */
export class KubeBridgeMetrics {
  /** Writes by side (host, flotilla) and what they wrote: a restart that writes again shows here. */
  readonly writes: Counter<'side' | 'write'>;
  /** Objects changed on both sides since the last sync, by kind. */
  readonly conflicts: Counter<'kind'>;
  /** Compare-and-sets lost to a concurrent writer (retried). */
  readonly lostWrites: Counter<'side'>;
  private readonly controller: ControllerMetrics;

  static readonly of = perRegistry((registry) => new KubeBridgeMetrics(registry));

  private constructor(registry: Registry) {
    const registers = [registry];
    this.writes = new Counter({
      name: 'flotilla_kube_bridge_writes_total',
      help: 'Writes the kube-bridge made, by side (host, flotilla) and what it wrote',
      labelNames: ['side', 'write'],
      registers,
    });
    this.conflicts = new Counter({
      name: 'flotilla_kube_bridge_conflicts_total',
      help: 'Objects changed on both sides since the last sync (resolved for the owning side and reported as an event)',
      labelNames: ['kind'],
      registers,
    });
    this.lostWrites = new Counter({
      name: 'flotilla_kube_bridge_lost_writes_total',
      help: 'Compare-and-set writes lost to a concurrent writer and retried',
      labelNames: ['side'],
      registers,
    });
    this.controller = ControllerMetrics.of(registry);
  }

  /** The number of mirrored objects (sync records), asked at every scrape. */
  watchObjects(count: () => number): void {
    this.controller.countObjects('mirrored', count);
  }

  forget(): void {
    this.controller.forgetObjects();
  }
}
