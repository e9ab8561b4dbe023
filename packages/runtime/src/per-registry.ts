import type { Registry } from 'prom-client';

/**
 * Makes `make` run once per registry. A registry refuses a second metric of the same name, and a controller is
 * rebuilt on every leadership term while the service's registry lives as long as the process.
 */
export function perRegistry<T>(make: (registry: Registry) => T): (registry: Registry) => T {
  const made = new WeakMap<Registry, T>();
  return (registry) => {
    if (!made.has(registry)) made.set(registry, make(registry));
    return made.get(registry)!;
  };
}
