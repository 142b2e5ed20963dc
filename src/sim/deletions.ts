// Deletion accounting: the evidence tests use to prove "each pod is deleted at most once".
import type { PodDeletion } from './types.js';

type PodRef = Omit<PodDeletion, 'at'>;

export class DeletionLedger {
  private readonly requests = new Map<string, number>();
  private readonly effective = new Map<string, number>();
  private readonly log: PodDeletion[] = [];
  private readonly listeners = new Set<(pod: PodRef) => void>();

  /** A DELETE or eviction that resolved to this pod, whatever its outcome. */
  recordRequest(uid: string): void {
    this.requests.set(uid, (this.requests.get(uid) ?? 0) + 1);
  }

  /** A live pod moved to Terminating (or gone) by a client. */
  recordDeletion(pod: PodRef): void {
    this.effective.set(pod.uid, (this.effective.get(pod.uid) ?? 0) + 1);
    this.log.push({ at: Date.now(), ...pod });
    for (const listener of [...this.listeners]) {
      try {
        listener({ ...pod });
      } catch (err) {
        // A failing test listener must not turn into a 500 for the client; surface it instead.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  requestsByUid(): Map<string, number> {
    return new Map(this.requests);
  }

  deletionsByUid(): Map<string, number> {
    return new Map(this.effective);
  }

  deleted(): PodDeletion[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  onDeleted(listener: (pod: PodRef) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
