import type { Directive, ObjectRef } from '../directive/types.js';
import type { KubeGateway } from './gateway.js';
import { unlessNotFound } from './not-found.js';
import type { KubeWatches } from './watches.js';

/** How long an object we wrote stands in for one the watch has not delivered yet. */
const TRUST_UNWATCHED_MS = 5000;
/**
 * Written copies older than this are dropped: far beyond any watch lag, the watch's copy (or a
 * 409 and a re-read) is as good, and a busy api would otherwise keep a copy of every directive.
 */
const FORGET_WRITTEN_MS = 60_000;

/**
 * Directives as this process last saw them: a watch cache per namespace (shared by every request
 * and job of the process), plus the objects this process wrote itself, which the watch reports a
 * moment later. Reading costs no API round trip when warm; a miss or a cache that is not synced
 * falls back to a GET.
 *
 * A cache answers "as of the last watch event", which may be milliseconds behind the API server.
 * That is safe where it is used: every status write carries the cached resourceVersion, so a
 * stale read ends in a 409 and a fresh GET (StatusWriter), never in a silent overwrite.
 */
export class DirectiveCache {
  /** Objects returned by our own writes, kept until the watch delivers something as new. */
  private readonly written = new Map<string, { directive: Directive; at: number }>();
  private lastSweep = Date.now();

  private readonly stopObserving: () => void;
  private readonly deletedListeners = new Set<(directive: Directive) => void>();
  /** The namespaces whose watch this cache follows for deletions, and how to stop. */
  private readonly followed = new Map<string, () => void>();

  constructor(
    private readonly kube: KubeGateway,
    private readonly watches: KubeWatches,
  ) {
    this.stopObserving = kube.observeDirectiveWrites((directive) => this.offer(directive));
  }

  close(): void {
    this.stopObserving();
    this.written.clear();
    for (const stop of this.followed.values()) stop();
    this.followed.clear();
    this.deletedListeners.clear();
  }

  /**
   * Calls `listener` with each directive that a namespace watch of this cache (one a read has
   * started) sees deleted, from now on; answers how to stop.
   */
  onDeleted(listener: (directive: Directive) => void): () => void {
    this.deletedListeners.add(listener);
    return () => this.deletedListeners.delete(listener);
  }

  private follow(namespace: string): void {
    if (this.followed.has(namespace)) return;
    const informer = this.watches.informer('directives', namespace);
    const stop = informer.subscribe((kind, directive) => {
      if (kind !== 'delete') return;
      for (const listener of this.deletedListeners) listener(directive);
    });
    this.followed.set(namespace, stop);
  }

  /** The directive, from the cache when it holds it, else from the API (NotFoundError when gone). */
  async getDirective(ref: ObjectRef): Promise<Directive> {
    const cached = this.peek(ref);
    if (cached !== undefined) return cached;
    const directive = await this.kube.getDirective(ref);
    this.offer(directive);
    return directive;
  }

  /** Starts the namespace's watch; resolves once it has listed (true) or failed to (false). */
  ready(namespace: string): Promise<boolean> {
    this.follow(namespace);
    return this.watches.ready('directives', namespace);
  }

  /**
   * Whether the directive exists, as the namespace's watch sees it (the watch is started if it
   * was not); undefined while that watch cannot list.
   */
  async exists(ref: ObjectRef): Promise<boolean | undefined> {
    if (!(await this.ready(ref.namespace))) return undefined;
    return this.peek(ref) !== undefined;
  }

  /** The directive as cached, or undefined on a miss or while the watch is not synced. */
  peek(ref: ObjectRef): Directive | undefined {
    this.follow(ref.namespace);
    const informer = this.watches.synced('directives', ref.namespace);
    if (informer === undefined) return undefined;
    const watched = informer.get(ref.namespace, ref.name);
    const key = `${ref.namespace}/${ref.name}`;
    const written = this.written.get(key);
    if (written === undefined) return watched;
    if (
      watched === undefined
        ? Date.now() - written.at < TRUST_UNWATCHED_MS
        : isNewer(written.directive, watched)
    ) {
      return written.directive;
    }
    // The watch caught up (or never showed the object: deleted since, or not ours to trust).
    this.written.delete(key);
    return watched;
  }

  /** Records an object just returned by the API server (our own write or read). */
  offer(directive: Directive): void {
    const { namespace, name } = directive.metadata;
    const key = `${namespace}/${name}`;
    const known = this.written.get(key);
    if (known === undefined || isNewer(directive, known.directive)) {
      this.written.set(key, { directive, at: Date.now() });
    }
    this.sweep();
  }

  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < FORGET_WRITTEN_MS / 6) return;
    this.lastSweep = now;
    for (const [key, entry] of this.written) {
      if (now - entry.at > FORGET_WRITTEN_MS) this.written.delete(key);
    }
  }

  /** The directive from the cache when fresh, else the API; undefined when it does not exist. */
  find(ref: ObjectRef): Promise<Directive | undefined> {
    return unlessNotFound(this.getDirective(ref));
  }
}

/**
 * resourceVersions are opaque by contract; etcd's are increasing integers, which is all this
 * relies on, and only to pick the fresher of two copies. A wrong pick costs a 409 and a re-read.
 */
function isNewer(a: Directive, b: Directive): boolean {
  if (a.metadata.uid !== b.metadata.uid) return false;
  const left = Number(a.metadata.resourceVersion);
  const right = Number(b.metadata.resourceVersion);
  return Number.isFinite(left) && Number.isFinite(right) && left > right;
}
