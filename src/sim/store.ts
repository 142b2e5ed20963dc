import { copyJson } from './copy.js';
import { controllerRef, type KubeObject } from './objects.js';

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
  /** Objects per resource key, then per namespace, then by name. */
  private readonly buckets = new Map<string, Map<string, Map<string, KubeObject>>>();
  /**
   * The same objects per resource key, then per controller uid (the owner reference marked
   * `controller`), then by name: a controller reconciles often and owns few of its namespace's pods.
   */
  private readonly controlled = new Map<string, Map<string, Map<string, KubeObject>>>();
  /** Changes in revision order; `historyStart` is the index of the oldest one still kept. */
  private history: StoreEvent[] = [];
  private historyStart = 0;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private readonly outbox: StoreEvent[] = [];
  private delivering = false;

  constructor(private readonly historySize = 1000) {}

  resourceVersion(): string {
    return String(this.revision);
  }

  get(key: string, namespace: string, name: string): KubeObject | undefined {
    const found = this.bucket(key).get(namespace)?.get(name);
    return found ? copyJson(found) : undefined;
  }

  /** The stored object itself, not a copy: read it, never change or keep it. */
  peek(key: string, namespace: string, name: string): Readonly<KubeObject> | undefined {
    return this.bucket(key).get(namespace)?.get(name);
  }

  /**
   * Objects of a resource (of one namespace when given, those `matches` keeps when given), ordered
   * by namespace and name. Only the objects returned are copied.
   */
  list(key: string, namespace?: string, matches?: (obj: KubeObject) => boolean): KubeObject[] {
    const bucket = this.bucket(key);
    const namespaces = namespace === undefined ? [...bucket.keys()].sort(byString) : [namespace];
    return namespaces.flatMap((ns) =>
      [...(bucket.get(ns)?.entries() ?? [])]
        .filter(([, obj]) => matches === undefined || matches(obj))
        .sort(([a], [b]) => byString(a, b))
        .map(([, obj]) => copyJson(obj)),
    );
  }

  /** Visits the stored objects without copying them: read them, never change or keep them. */
  scan(key: string, namespace: string, visit: (obj: KubeObject) => void): void {
    for (const obj of this.bucket(key).get(namespace)?.values() ?? []) visit(obj);
  }

  /** Visits the stored objects a controller owns, without copying them (see `scan`). */
  scanControlled(key: string, controllerUid: string, visit: (obj: KubeObject) => void): void {
    for (const obj of this.controlled.get(key)?.get(controllerUid)?.values() ?? []) visit(obj);
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
    const current = this.bucket(key).get(namespace)?.get(name);
    if (!current) return undefined;
    return this.commit(key, 'DELETED', finalState ?? current);
  }

  /** Changes after `revision`, or undefined when the history no longer reaches back that far. */
  eventsSince(revision: number): StoreEvent[] | undefined {
    if (revision < this.compactedRevision) return undefined;
    // Revisions increase along the history: binary search for the first one after `revision`.
    let low = this.historyStart;
    let high = this.history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.history[middle]!.revision > revision) high = middle;
      else low = middle + 1;
    }
    return this.history.slice(low);
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
      for (const [namespace, objects] of bucket) if (objects.size > 0) names.add(namespace);
    }
    return names;
  }

  private commit(key: string, type: WatchEventType, obj: KubeObject): KubeObject {
    const { namespace, name } = obj.metadata;
    const bucket = this.bucket(key);
    let objects = bucket.get(namespace);
    if (!objects) {
      objects = new Map();
      bucket.set(namespace, objects);
    }
    const previous = objects.get(name);
    this.revision += 1;
    const stored = copyJson(obj);
    stored.metadata.resourceVersion = String(this.revision);
    if (type === 'DELETED') objects.delete(name);
    else objects.set(name, stored);
    this.index(key, previous, type === 'DELETED' ? undefined : stored);
    this.record({ revision: this.revision, key, type, object: stored, previous });
    return copyJson(stored);
  }

  /**
   * Keeps `controlled` in step with a write. An object that keeps its controller is replaced in
   * place, so each controller's objects stay in the order of the namespace's own map (one that
   * changes controller joins the end of its new controller's).
   */
  private index(key: string, previous?: KubeObject, stored?: KubeObject): void {
    let byController = this.controlled.get(key);
    if (!byController) {
      byController = new Map();
      this.controlled.set(key, byController);
    }
    const before = controllerUid(previous);
    const after = controllerUid(stored);
    if (before !== undefined && before !== after) {
      const owned = byController.get(before);
      owned?.delete(previous!.metadata.name);
      if (owned?.size === 0) byController.delete(before);
    }
    if (after !== undefined) {
      let owned = byController.get(after);
      if (!owned) {
        owned = new Map();
        byController.set(after, owned);
      }
      owned.set(stored!.metadata.name, stored!);
    }
  }

  private record(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historySize) {
      this.compactedRevision = this.history[this.historyStart]!.revision;
      this.history[this.historyStart] = undefined as unknown as StoreEvent;
      this.historyStart += 1;
      // Drop the forgotten head in one go now and then, not one shift (O(n)) per write.
      if (this.historyStart >= this.historySize) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
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

  private bucket(key: string): Map<string, Map<string, KubeObject>> {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new Map();
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}

function controllerUid(obj: KubeObject | undefined): string | undefined {
  return obj === undefined ? undefined : controllerRef(obj)?.uid;
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
