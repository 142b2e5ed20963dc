import { isLaterRun, type RunId } from './run-identity.js';
import type { Run } from './runs.js';

/** A Map kept in use order, least recently used first, of at most `capacity` entries. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  /** The key used last: a run of repeats of one event reorders nothing. */
  private newest: string | undefined;
  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value === undefined || key === this.newest) return value;
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    for (const oldest of this.map.keys()) {
      if (this.map.size <= this.capacity) break;
      this.map.delete(oldest);
    }
  }

  delete(key: string): void {
    this.map.delete(key);
    if (key === this.newest) this.newest = undefined;
  }

  get size(): number {
    return this.map.size;
  }
}

/**
 * The runs this process saw accepted (their marker confirmed in Redis) or answered as duplicates
 * of an accepted run, so that a repeated event is answered without a Redis round trip. An accepted
 * run never becomes new again while its marker lives (DESIGN §2 *Runs*), so a hit is the decision
 * Redis would give; an entry ends with the marker's lifetime. The answer names the directive's
 * latest run this process knows of: a later run another api replica accepted is named once this
 * process hears of it. A miss (another replica's run, an evicted entry) goes to Redis as before:
 * no decision depends on this cache.
 */
export class RecentRuns {
  /** Marker of each run known accepted → when it may be gone (epoch ms). */
  private readonly accepted: Lru<number>;
  /** The latest run known of each directive. */
  private readonly latest: Lru<Run>;

  constructor(
    capacity = 1024,
    private readonly now: () => number = Date.now,
  ) {
    this.accepted = new Lru(capacity);
    this.latest = new Lru(capacity);
  }

  /** The answer to an event for `ref` when that run is known accepted, else undefined. */
  recall(prefix: string, ref: RunId): Run | undefined {
    const key = runEntry(prefix, ref);
    const expiresAt = this.accepted.get(key);
    if (expiresAt === undefined) return undefined;
    if (expiresAt <= this.now()) {
      this.accepted.delete(key);
      return undefined;
    }
    return this.latest.get(directiveEntry(prefix, ref.uid));
  }

  /**
   * Notes that the run `ref` is accepted until `expiresAt`, and that `answer` (that run, or a
   * later one Redis named) is a run of the directive.
   */
  remember(prefix: string, ref: RunId, answer: Run, expiresAt: number): void {
    if (expiresAt <= this.now()) return;
    this.accepted.set(runEntry(prefix, ref), expiresAt);
    const key = directiveEntry(prefix, ref.uid);
    const known = this.latest.get(key);
    if (known === undefined || !isLaterRun(known, answer)) this.latest.set(key, answer);
  }

  get size(): number {
    return this.accepted.size;
  }
}

/** A run's entry in the caches (per queue prefix: tests share a process). */
function runEntry(prefix: string, ref: RunId): string {
  return `${prefix}\u0000${ref.uid}\u0000${ref.generation}\u0000${ref.runKey}`;
}

/** A directive's entry in the latest-run cache. */
function directiveEntry(prefix: string, uid: string): string {
  return `${prefix}\u0000${uid}`;
}
