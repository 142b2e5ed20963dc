import type { ChangeKind } from './informer.js';
import type { PodJson } from './pods.js';

/** What a pod watch offers an index: its cache as it is, and every change after. */
export interface PodSource {
  list(namespace: string): readonly PodJson[];
  subscribe(listener: (kind: ChangeKind, pod: PodJson) => void): () => void;
}

/**
 * A namespace's watched pods by label (key, then value, then pod name), kept by the watch's own
 * changes. A selector's pods are then found among those that carry one of its labels, not by
 * testing every pod of the namespace: a worker re-checks a selector at every gate and wake-up, and
 * namespaces can hold hundreds of pods of other workloads. Only the label keys selectors have
 * asked for are indexed (pods carry unique labels too, such as a StatefulSet's pod name).
 */
export class PodLabelIndex {
  /** Each pod as last seen, by name: what an update or delete must take out again. */
  private readonly pods = new Map<string, PodJson>();
  private readonly byLabel = new Map<string, Map<string, Map<string, PodJson>>>();

  /** Takes the cache as it is and follows its changes (both in one turn: nothing is missed). */
  constructor(source: PodSource, namespace: string) {
    for (const pod of source.list(namespace)) this.pods.set(pod.metadata?.name ?? '', pod);
    source.subscribe((kind, pod) => {
      if (kind === 'delete') this.remove(pod.metadata?.name ?? '');
      else this.add(pod);
    });
  }

  /** The pods carrying every one of the labels (all pods for no labels), in no particular order. */
  matching(labels: Record<string, string>): PodJson[] {
    let candidates: Iterable<PodJson> = this.pods.values();
    for (const key in labels) {
      const found = this.indexed(key).get(labels[key]!);
      if (found === undefined) return [];
      candidates = found.values();
      break;
    }
    const matched: PodJson[] = [];
    for (const pod of candidates) {
      if (carries(pod, labels)) matched.push(pod);
    }
    return matched;
  }

  /** The pods by value of one label key, indexed from now on. */
  private indexed(key: string): Map<string, Map<string, PodJson>> {
    let values = this.byLabel.get(key);
    if (values === undefined) {
      values = new Map();
      this.byLabel.set(key, values);
      for (const [name, pod] of this.pods) file(values, pod.metadata?.labels?.[key], name, pod);
    }
    return values;
  }

  private add(pod: PodJson): void {
    const name = pod.metadata?.name ?? '';
    const previous = this.pods.get(name);
    this.pods.set(name, pod);
    for (const [key, values] of this.byLabel) {
      const before = previous?.metadata?.labels?.[key];
      const after = pod.metadata?.labels?.[key];
      if (before !== undefined && before !== after) unfile(values, before, name);
      file(values, after, name, pod);
    }
  }

  private remove(name: string): void {
    const previous = this.pods.get(name);
    if (previous === undefined) return;
    this.pods.delete(name);
    for (const [key, values] of this.byLabel) {
      const value = previous.metadata?.labels?.[key];
      if (value !== undefined) unfile(values, value, name);
    }
  }
}

function file(
  values: Map<string, Map<string, PodJson>>,
  value: string | undefined,
  name: string,
  pod: PodJson,
): void {
  if (value === undefined) return;
  let named = values.get(value);
  if (named === undefined) {
    named = new Map();
    values.set(value, named);
  }
  named.set(name, pod);
}

function unfile(values: Map<string, Map<string, PodJson>>, value: string, name: string): void {
  const named = values.get(value);
  if (named === undefined) return;
  named.delete(name);
  if (named.size === 0) values.delete(value);
}

function carries(pod: PodJson, labels: Record<string, string>): boolean {
  const own = pod.metadata?.labels;
  for (const key in labels) {
    if (own?.[key] !== labels[key]) return false;
  }
  return true;
}
