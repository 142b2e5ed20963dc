import type { PodSelector } from '../directive/types.js';
import type { PodInfo } from '../kube/pods.js';
import type { ChosenPod, SelectorJobData } from '../queue/selector-job.js';
import { owesReplacement } from './batches.js';
import { isOwnReplacement, type FirstBounces } from './others-down.js';

/**
 * DESIGN §4 Guarantees with maxConcurrentSelectors > 1: never more than maxUnavailable of a
 * selector's pods down because of pod-bouncer, whichever selector of the run sent them. Two
 * selectors whose labels overlap are in progress at once: a pod one sends is down for the other
 * too. Each selector registers its choice (`SentPods.registerChoice`); every pod sent is checked,
 * in the script that records it, against the budget of every selector that chose it.
 */

/** A selector's choice as the run's other selectors read it (short keys: stored once per run). */
export interface SiblingChoice {
  /** Its namespace and labels: whose pods are its replacements. */
  n: string;
  l: Record<string, string>;
  /** Its maxUnavailable. */
  m: number;
  /** Its controlled chosen pods' uids, Ready when chosen: the ones that count as down once sent. */
  o: string[];
  /**
   * Its other chosen pods' uids (bare, or not Ready when chosen: sent, they take nothing down):
   * with `o`, every chosen pod, none of them a replacement.
   */
  b: string[];
}

/**
 * Whether another selector of the directive may choose some of selector `index`'s pods: same
 * namespace, and no label both ask for with different values. Only such a selector registers its
 * choice and is checked: the others keep one budget each, as with one selector at a time.
 */
export function overlapsAnother(selectors: readonly PodSelector[], index: number): boolean {
  const mine = selectors[index];
  if (mine === undefined) return false;
  return selectors.some(
    (other, at) =>
      at !== index &&
      other.namespace === mine.namespace &&
      Object.entries(other.labels).every(([key, value]) => (mine.labels[key] ?? value) === value),
  );
}

export function choiceOf(
  selector: SelectorJobData['selector'],
  chosen: readonly ChosenPod[],
  maxUnavailable: number,
): SiblingChoice {
  return {
    n: selector.namespace,
    l: selector.labels,
    m: maxUnavailable,
    o: chosen.filter(owesReplacement).map((pod) => pod.uid),
    b: chosen.filter((pod) => !owesReplacement(pod)).map((pod) => pod.uid),
  };
}

/**
 * What a selector's sent pods are offset by: its pods Ready, not terminating and not chosen that
 * may replace a pod the run bounced (`isOwnReplacement`: created in or after the second of the
 * run's first bounce to a pod of their owner). Pods left alone as new enough replace none.
 */
export function creditOf(
  choice: SiblingChoice,
  pods: readonly PodInfo[],
  first: FirstBounces,
): number {
  const chosen = new Set([...choice.o, ...choice.b]);
  return pods.filter(
    (pod) =>
      pod.ready &&
      !pod.terminating &&
      !chosen.has(pod.uid) &&
      isOwnReplacement(pod, choice.n, first),
  ).length;
}

/** The record script's answer: pods another selector sends, and pods held back by a budget. */
export interface SentAnswer {
  taken: string[];
  held: string[];
  /** Of `taken`, those another directive's run sent, with the second it did. */
  claimed: Map<string, number>;
  /** The selector (index) whose budget held them. */
  heldBy?: string;
}

export function readSentAnswer(raw: readonly string[]): SentAnswer {
  const answer: SentAnswer = { taken: [], held: [], claimed: new Map() };
  for (const entry of raw) {
    const [uid = entry, at] = entry.split('@');
    if (entry.startsWith('#')) answer.heldBy = entry.slice(1);
    else if (entry.startsWith('!')) answer.held.push(entry.slice(1));
    else answer.taken.push(uid);
    if (at !== undefined) answer.claimed.set(uid, Number(at));
  }
  return answer;
}
