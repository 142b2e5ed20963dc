import type { ChangeListener, Informer } from './informer.js';

/** What readers of a watch use: the same for a namespace's own watch and a slice of a wider one. */
export interface WatchedCollection<T> {
  start(): Promise<void>;
  isSynced(): boolean;
  get(namespace: string, name: string): T | undefined;
  list(namespace: string): readonly T[];
  subscribe(listener: ChangeListener<T>): () => void;
  stop(): Promise<void>;
}

/**
 * One cluster-wide watch seen as one collection per namespace: reads go to the shared cache,
 * and each change is handed only to the listeners of its own namespace (one lookup per event,
 * whatever the number of namespaces watched).
 */
export class NamespaceSlices<T extends { metadata?: { namespace?: string } }> {
  private readonly listeners = new Map<string, Set<ChangeListener<T>>>();
  private readonly slices = new Map<string, WatchedCollection<T>>();

  constructor(private readonly all: Informer<T>) {
    all.subscribe((kind, object) => {
      const namespace = object.metadata?.namespace ?? '';
      for (const listener of this.listeners.get(namespace) ?? []) listener(kind, object);
    });
  }

  /** The namespace's slice: the same object every time (readers key their indexes by it). */
  slice(namespace: string): WatchedCollection<T> {
    let slice = this.slices.get(namespace);
    if (slice === undefined) {
      slice = this.makeSlice(namespace);
      this.slices.set(namespace, slice);
    }
    return slice;
  }

  private makeSlice(namespace: string): WatchedCollection<T> {
    const all = this.all;
    return {
      start: () => all.start(),
      isSynced: () => all.isSynced(),
      get: (ns, name) => all.get(ns, name),
      list: (ns) => all.list(ns),
      subscribe: (listener) => {
        let set = this.listeners.get(namespace);
        if (set === undefined) {
          set = new Set();
          this.listeners.set(namespace, set);
        }
        set.add(listener);
        return () => set.delete(listener);
      },
      // The shared watch stops with the process's watches, not with one namespace's readers.
      stop: () => Promise.resolve(),
    };
  }
}
