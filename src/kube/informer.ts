import {
  ListWatch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from '../logger.js';
import { watchRestarts } from '../metrics/registry.js';
import { ObservedWatch, type StreamEnd } from './watch-stream.js';
import { Watchdog } from './watchdog.js';

export type ChangeKind = 'add' | 'update' | 'delete';
export type ChangeListener<T> = (kind: ChangeKind, object: T) => void;

/** What to list and watch, and how to trim each object before the cache keeps it. */
export interface InformerSource {
  /** The `kind` label of the restart counter, e.g. pods. */
  kind: string;
  /** The collection's path, e.g. /api/v1/namespaces/ns/pods. */
  path: string;
  list: () => Promise<KubernetesListObject<KubernetesObject>>;
  /** What the cache keeps of each object, listed or watched (the object as sent when absent). */
  trim?: (object: KubernetesObject) => KubernetesObject;
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
 * Nor does it notice a stream that stays open but goes silent: a watchdog does (`watchdog.ts`),
 * reports "not synced" and lists again. Every restart is counted by kind and reason.
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
  private readonly kind: string;
  private readonly watch: ObservedWatch;
  private readonly watchdog: Watchdog;
  /** A silent stream was ended by the watchdog; its replacement has not connected yet. */
  private relisting = false;

  constructor(kubeConfig: KubeConfig, source: InformerSource, log: Logger, silenceLimitMs: number) {
    this.log = log;
    this.kind = source.kind;
    this.watchdog = new Watchdog(silenceLimitMs, () => this.relistSilent());
    const trim = source.trim;
    this.watch = new ObservedWatch(
      kubeConfig,
      {
        opened: () => this.streamOpened(),
        heard: (bookmark) => this.watchdog.heard(bookmark),
        ended: (reason) => this.streamEnded(reason),
      },
      trim,
    );
    // Objects arrive as the API server sends them, trimmed to what readers need (memory) before
    // the cache keeps them; T is how the caller reads them.
    const list =
      trim === undefined
        ? source.list
        : async (): Promise<KubernetesListObject<KubernetesObject>> => {
            const listed = await source.list();
            return { ...listed, items: listed.items.map(trim) };
          };
    this.listWatch = new ListWatch(source.path, this.watch, list, false);
    this.listWatch.on('add', (object) => this.emit('add', object as T));
    this.listWatch.on('update', (object) => this.emit('update', object as T));
    this.listWatch.on('delete', (object) => this.emit('delete', object as T));
    this.listWatch.on('error', (error) => {
      if (!this.stopped) watchRestarts.inc({ kind: this.kind, reason: 'error' });
      this.restartLater(error);
    });
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
    this.watchdog.stop();
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

  /** A stream connected: after a silent one was listed again, the cache is current again. */
  private streamOpened(): void {
    this.watchdog.opened();
    if (this.relisting && !this.stopped && this.retryTimer === undefined) this.synced = true;
    this.relisting = false;
  }

  /** Errors are counted where they are handled (restartLater); every other end is a restart. */
  private streamEnded(reason: StreamEnd): void {
    this.watchdog.closed();
    if (this.stopped || reason === 'error') return;
    watchRestarts.inc({ kind: this.kind, reason });
  }

  /**
   * The stream is open but has said nothing for longer than a healthy one can: the cache may be
   * missing changes. Callers go to the API until the watch has listed again.
   */
  private relistSilent(): void {
    if (this.stopped || !this.watch.relist()) return;
    this.log.warn({ watch: this.kind }, 'watch went silent; listing again');
    this.relisting = true;
    this.synced = false;
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
