import {
  ListWatch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from '../logger.js';

export type ChangeKind = 'add' | 'update' | 'delete';
export type ChangeListener<T> = (kind: ChangeKind, object: T) => void;

/** What to list and watch, and how to trim each object before the cache keeps it. */
export interface InformerSource {
  /** The collection's path, e.g. /api/v1/namespaces/ns/pods. */
  path: string;
  list: () => Promise<KubernetesListObject<KubernetesObject>>;
  slim?: (object: KubernetesObject) => void;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/**
 * One shared list+watch of a resource collection (one namespace and kind), on client-node's
 * `ListWatch`: it lists once, then watches from the list's resourceVersion, resumes from the
 * last seen resourceVersion when a watch ends or times out (STACK pitfall 5) and re-lists on
 * 410 Gone. What `ListWatch` does not do is come back after any other error (API unreachable,
 * 5xx): this class restarts it with backoff, and reports "not synced" meanwhile, so that
 * callers fall back to a direct API read instead of trusting a cache that may have gone stale.
 */
export class Informer<T> {
  private readonly listWatch: ListWatch<KubernetesObject>;
  private readonly listeners = new Set<ChangeListener<T>>();
  private synced = false;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private readonly log: Logger;

  constructor(kubeConfig: KubeConfig, source: InformerSource, log: Logger) {
    this.log = log;
    // Objects arrive as the API server sends them; T is how the caller reads them. `slim` runs
    // first, on the very object the cache keeps, to drop what no reader needs (memory).
    this.listWatch = new ListWatch(source.path, new Watch(kubeConfig), source.list, false);
    const slim = source.slim ?? ((): void => undefined);
    const keep = (kind: ChangeKind) => (object: KubernetesObject) => {
      slim(object);
      this.emit(kind, object as T);
    };
    this.listWatch.on('add', keep('add'));
    this.listWatch.on('update', keep('update'));
    this.listWatch.on('delete', (object) => this.emit('delete', object as T));
    this.listWatch.on('error', (error) => this.restartLater(error));
  }

  /** Starts the list+watch once; resolves after the first list, or on its failure (not synced). */
  start(): Promise<void> {
    this.started ??= this.run();
    return this.started;
  }

  /** True once listed and while the watch is up: the cache may then answer instead of the API. */
  isSynced(): boolean {
    return this.synced;
  }

  get(namespace: string, name: string): T | undefined {
    return this.listWatch.get(name, namespace) as T | undefined;
  }

  list(namespace: string): readonly T[] {
    return this.listWatch.list(namespace) as readonly T[];
  }

  /** Listeners run synchronously for every change the watch delivers, in order. */
  subscribe(listener: ChangeListener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.synced = false;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    await this.listWatch.stop();
  }

  private async run(): Promise<void> {
    try {
      await this.listWatch.start();
      if (!this.stopped && this.retryTimer === undefined) {
        this.synced = true;
        this.retryMs = FIRST_RETRY_MS;
      }
    } catch (error) {
      this.restartLater(error);
    }
  }

  private emit(kind: ChangeKind, object: T): void {
    for (const listener of this.listeners) {
      try {
        listener(kind, object);
      } catch (error) {
        this.log.error({ err: error }, 'a watch listener failed');
      }
    }
  }

  private restartLater(error: unknown): void {
    this.synced = false;
    if (this.stopped || this.retryTimer !== undefined) return;
    this.log.debug({ err: error, retryMs: this.retryMs }, 'watch failed; restarting it');
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.started = this.run();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }
}
