import type { PodInfo } from '../../kube/pods.js';
import type { StepContext } from '../context.js';

/**
 * The selector's pods, from the shared pod watch when it is synced, so a re-check costs no API
 * request; else a LIST.
 */
export async function selectorPods(context: StepContext): Promise<PodInfo[]> {
  const { selector } = context.data;
  return (
    context.deps.view?.pods(selector.namespace, selector.labels) ??
    (await context.deps.kube.listPods(selector.namespace, selector.labels))
  );
}

/**
 * Of `pods`, those Ready, not terminating and not among the chosen: replacements (or pods that
 * were new enough to be left alone).
 */
export function replacementsAmong(context: StepContext, pods: readonly PodInfo[]): PodInfo[] {
  const chosen = new Set((context.progress.chosen ?? []).map((pod) => pod.uid));
  return pods.filter((pod) => pod.ready && !pod.terminating && !chosen.has(pod.uid));
}

/** The selector's replacements now (`replacementsAmong` of `selectorPods`). */
export async function readyReplacements(context: StepContext): Promise<PodInfo[]> {
  return replacementsAmong(context, await selectorPods(context));
}
