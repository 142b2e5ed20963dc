import type { PodInfo } from '../../kube/pods.js';
import type { StepContext } from '../context.js';

/**
 * The selector's pods that are Ready, not terminating and not among the chosen: replacements
 * (or pods that were new enough to be left alone). From the shared pod watch when it is synced,
 * so a re-check costs no API request; else a LIST.
 */
export async function readyReplacements(context: StepContext): Promise<PodInfo[]> {
  const { selector } = context.data;
  const chosen = new Set((context.progress.chosen ?? []).map((pod) => pod.uid));
  const pods =
    context.deps.view?.pods(selector.namespace, selector.labels) ??
    (await context.deps.kube.listPods(selector.namespace, selector.labels));
  return pods.filter((pod) => pod.ready && !pod.terminating && !chosen.has(pod.uid));
}
