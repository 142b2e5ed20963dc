import type { StepContext, StepOutcome } from '../context.js';

/**
 * Waits until at least `waitForReplicas` pods match the selector, are Ready, are not
 * terminating and are not one of the pods this selector bounced (a StatefulSet replacement has
 * the old name but a new uid, so uids are what count).
 */
export async function waitForReplicas(context: StepContext): Promise<StepOutcome> {
  const { selector } = context.data;
  const wanted = selector.waitForReplicas;
  if (wanted === 0) return { next: 'done' };
  const bounced = new Set((context.progress.chosen ?? []).map((pod) => pod.uid));
  // From the shared pod watch when it is synced: a re-check then costs no API request.
  const pods =
    context.deps.view?.pods(selector.namespace, selector.labels) ??
    (await context.deps.kube.listPods(selector.namespace, selector.labels));
  const ready = pods.filter((pod) => pod.ready && !pod.terminating && !bounced.has(pod.uid));
  if (ready.length >= wanted) {
    await context.note(
      `${ready.length} replacement pod(s) Ready: ${ready.map((pod) => pod.name).join(', ')}`,
    );
    return { next: 'done' };
  }
  return {
    wait: {
      what: `${wanted} Ready replacement pod(s) in ${selector.namespace} (${ready.length} so far)`,
      timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
      wake: {
        kind: 'replicas',
        namespace: selector.namespace,
        labels: selector.labels,
        wanted,
        exclude: [...bounced],
      },
    },
  };
}
