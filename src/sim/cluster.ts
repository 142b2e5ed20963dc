// The simulator's object graph: one store, the API machinery on top, the controllers beside it.
import { ApiDispatcher } from './api.js';
import { AppsControllers } from './apps-controllers.js';
import type { CrdDefinition } from './crd.js';
import { CrudHandlers } from './crud.js';
import { DeletionLedger } from './deletions.js';
import { evictionHandler } from './disruption.js';
import { FaultInjector } from './faults.js';
import { preconditionsOf } from './object-meta.js';
import { Patcher } from './patching.js';
import { PodRuntime } from './pods.js';
import { RequestLog } from './request-log.js';
import { isDryRun, ok } from './requests.js';
import { ResourceRegistry, resourceTypes } from './resources.js';
import type { ResourceType } from './resources.js';
import { mulberry32 } from './rng.js';
import { ObjectStore } from './store.js';
import { Timers } from './timers.js';
import { TokenRegistry } from './token-review.js';
import type { SimulatorOptions } from './types.js';
import { WatchHub } from './watch.js';
import { WorkloadController } from './workloads.js';
import { ObjectWriter } from './writes.js';

export class Cluster {
  readonly timers = new Timers();
  readonly ledger = new DeletionLedger();
  readonly tokens = new TokenRegistry();
  readonly log = new RequestLog();
  readonly registry: ResourceRegistry;
  readonly store: ObjectStore;
  readonly writer: ObjectWriter;
  readonly patcher: Patcher;
  readonly pods: PodRuntime;
  readonly apps: AppsControllers;
  readonly workloads: WorkloadController;
  readonly watches: WatchHub;
  readonly faults: FaultInjector;
  readonly dispatcher: ApiDispatcher;
  readonly directiveType: ResourceType;

  constructor(crd: CrdDefinition, options: SimulatorOptions, serverAddress: () => string) {
    const seed = options.seed ?? 1;
    // Names draw from their own stream so that fault decisions replay regardless of pod churn.
    const names = mulberry32(seed ^ 0x9e3779b9);
    this.registry = new ResourceRegistry(resourceTypes(crd));
    this.directiveType = this.registry.byStoreKey(crd.plural);
    this.store = new ObjectStore(options.watchHistorySize ?? 1000);
    this.writer = new ObjectWriter(this.store, names);
    this.patcher = new Patcher(this.store, this.writer);
    this.pods = new PodRuntime(
      this.store,
      this.timers,
      this.ledger,
      this.registry.byStoreKey('pods'),
    );
    this.apps = new AppsControllers({
      store: this.store,
      pods: this.pods,
      writer: this.writer,
      types: (key) => this.type(key),
      nodes: nodeNames(options.nodes ?? 3),
      random: names,
      defaults: { readinessDelayMs: options.readinessDelayMs ?? 0, terminationGraceMs: 0 },
      timers: this.timers,
    });
    this.pods.setHooks({ terminationGraceMs: (pod) => this.apps.timingOf(pod).terminationGraceMs });
    this.workloads = new WorkloadController(this.apps, this.pods, this.writer, (key) =>
      this.type(key),
    );
    this.watches = new WatchHub(this.store, this.timers, options.bookmarkIntervalMs ?? 15_000);
    this.faults = new FaultInjector(seed);
    const crud = new CrudHandlers(this.store, this.writer, this.patcher);
    this.dispatcher = new ApiDispatcher(this.registry, crud, this.store, serverAddress);
    this.dispatcher.override('pods', 'delete', (req) =>
      ok(
        this.pods.delete(req.namespace, req.path.name ?? '', {
          preconditions: preconditionsOf(req.body),
          dryRun: isDryRun(req.query),
        }),
      ),
    );
    this.dispatcher.override('pods', 'evict', evictionHandler(this.store, this.pods));
    this.dispatcher.override('tokenreviews', 'create', this.tokens.handler());
  }

  type(storeKey: string): ResourceType {
    return this.registry.byStoreKey(storeKey);
  }
}

function nodeNames(count: number): string[] {
  return Array.from({ length: Math.max(1, count) }, (_, i) => `sim-node-${i + 1}`);
}
