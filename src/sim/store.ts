import type { KubeObject } from './objects.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. `object` and `previous` are shared snapshots: never mutate them. */
export interface StoreEvent {
  revision: number;
  key: string;
  type: WatchEventType;
  object: KubeObject;
  previous?: KubeObject;
}

/**
 * The simulated etcd: objects per resource key, one global revision counter that every write
 * bumps (it becomes the object's resourceVersion), and a bounded history of changes so watches
 * can resume from a resourceVersion. Reads and writes copy, so callers never share state.
 */
export class ObjectStore {
  private revision = 1;
  // Events at or before this revision may have been dropped from the history.
  private compactedRevision = 1;
  private readonly buckets = new Map<string, Map<string, KubeObject>>();
  private readonly history: StoreEvent[] = [];
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private readonly outbox: StoreEvent[] = [];
  private delivering = false;

  constructor(private readonly historySize = 1000) {}

  resourceVersion(): string {
    return String(this.revision);
  }

  get(key: string, namespace: string, name: string): KubeObject | undefined {
    const found = this.bucket(key).get(`${namespace}/${name}`);
    return found ? structuredClone(found) : undefined;
  }

  /** Objects of a resource (of one namespace when given), ordered by namespace and name. */
  list(key: string, namespace?: string): KubeObject[] {
    return [...this.bucket(key).entries()]
      .filter(([, obj]) => namespace === undefined || obj.metadata.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => structuredClone(obj));
  }

  create(key: string, obj: KubeObject): KubeObject {
    return this.commit(key, 'ADDED', obj);
  }

  update(key: string, obj: KubeObject): KubeObject {
    return this.commit(key, 'MODIFIED', obj);
  }

  /** Removes an object; `finalState` lets the DELETED event carry e.g. a deletionTimestamp. */
  remove(
    key: string,
    namespace: string,
    name: string,
    finalState?: KubeObject,
  ): KubeObject | undefined {
    const current = this.bucket(key).get(`${namespace}/${name}`);
    if (!current) return undefined;
    return this.commit(key, 'DELETED', finalState ?? current);
  }

  /** Changes after `revision`, or undefined when the history no longer reaches back that far. */
  eventsSince(revision: number): StoreEvent[] | undefined {
    if (revision < this.compactedRevision) return undefined;
    return this.history.filter((event) => event.revision > revision);
  }

  oldestResourceVersion(): string {
    return String(this.compactedRevision);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  namespaces(): Set<string> {
    const names = new Set<string>();
    for (const bucket of this.buckets.values()) {
      for (const obj of bucket.values()) names.add(obj.metadata.namespace);
    }
    return names;
  }

  private commit(key: string, type: WatchEventType, obj: KubeObject): KubeObject {
    const bucket = this.bucket(key);
    const id = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const previous = bucket.get(id);
    this.revision += 1;
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(this.revision);
    if (type === 'DELETED') bucket.delete(id);
    else bucket.set(id, stored);
    this.record({ revision: this.revision, key, type, object: stored, previous });
    return structuredClone(stored);
  }

  private record(event: StoreEvent): void {
    this.history.push(event);
    while (this.history.length > this.historySize) {
      const dropped = this.history.shift();
      if (dropped) this.compactedRevision = dropped.revision;
    }
    this.outbox.push(event);
    this.deliver();
  }

  // Listeners may write (a controller creating a replacement pod); queueing keeps every listener
  // seeing events in revision order instead of a nested write overtaking the one that caused it.
  private deliver(): void {
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let event = this.outbox.shift(); event; event = this.outbox.shift()) {
        for (const listener of [...this.listeners]) listener(event);
      }
    } finally {
      this.delivering = false;
    }
  }

  private bucket(key: string): Map<string, KubeObject> {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new Map();
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}
