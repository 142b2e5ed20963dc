import { isPodReady, isTerminating } from '../../src/sim/pod-factory.js';
import { directive, eventually, type Harness } from './harness.js';

type Shape = { replicas: number; readinessDelayMs?: number | null; terminationGraceMs?: number };

/** A ReplicaSet per app in `namespace`, labelled app=<its name>, shaped by `shape`. */
export function addApps(
  h: Harness,
  namespace: string,
  apps: string[],
  shape: Shape | ((app: string) => Shape),
): void {
  for (const app of apps) {
    const of = typeof shape === 'function' ? shape(app) : shape;
    h.sim.addWorkload({ namespace, name: app, kind: 'ReplicaSet', labels: { app }, ...of });
  }
}

/**
 * One pod (the ReplicaSet `app`, labelled app=<app>) in `namespace`, and the directive `name`
 * there that bounces it, its selector with `selector` and its spec with `spec` added.
 */
export function onePodDirective(
  h: Harness,
  namespace: string,
  name: string,
  {
    app = 'istiod',
    selector = {},
    spec = {},
  }: { app?: string; selector?: object; spec?: object } = {},
): void {
  addApps(h, namespace, [app], { replicas: 1 });
  const manifest = directive(namespace, name, [{ namespace, labels: { app }, ...selector }]);
  h.sim.applyDirective({ ...manifest, spec: { ...manifest.spec, ...spec } });
}

/** A directive with these selectors, at most `limit` of them in progress at once. */
export function concurrentDirective(
  namespace: string,
  name: string,
  selectors: object[],
  limit: number,
) {
  const manifest = directive(namespace, name, selectors);
  (manifest.spec as Record<string, unknown>).maxConcurrentSelectors = limit;
  return manifest;
}

/** Once `namespace` has exactly `count` pods of app=web, all Ready and none terminating. */
export function settled(h: Harness, namespace: string, count: number): Promise<true> {
  return eventually(`${count} pods Ready in ${namespace}`, () => {
    const pods = h.sim.listPods(namespace, { app: 'web' });
    const ready = pods.filter((pod) => isPodReady(pod) && !isTerminating(pod));
    return pods.length === count && ready.length === count ? (true as const) : undefined;
  });
}
