import { DONE, type StepContext, type StepOutcome } from '../context.js';
import { soakWait } from './gates.js';
import { readyReplacements } from './replacements.js';

/**
 * Waits until at least `waitForReplicas` pods match the selector, are Ready, are not
 * terminating and are not one of the pods this selector bounced (a StatefulSet replacement has
 * the old name but a new uid, so uids are what count).
 */
export async function waitForReplicas(context: StepContext): Promise<StepOutcome> {
  const { selector } = context.data;
  const wanted = selector.waitForReplicas;
  // After the last batch, the soak follows the replicas wait (or the batch, without one).
  const soakAfterLast = async (): Promise<StepOutcome> => {
    const soak = await soakWait(context, new Set(context.progress.bounced ?? []));
    return soak === undefined ? DONE : { wait: soak };
  };
  if (wanted === 0) return soakAfterLast();
  const ready = await readyReplacements(context);
  if (ready.length >= wanted) {
    if (context.progress.soak === undefined && context.progress.soakedAfter === undefined) {
      context.note(
        `${ready.length} replacement pod(s) Ready: ${ready.map((pod) => pod.name).join(', ')}`,
      );
    }
    return soakAfterLast();
  }
  const chosen = context.progress.chosen ?? [];
  return {
    wait: {
      what: `${wanted} Ready replacement pod(s) in ${selector.namespace} (${ready.length} so far)`,
      counts: {
        bounced: context.progress.bounced?.length ?? 0,
        chosen: chosen.length,
        ready: ready.length,
        wanted,
      },
      timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
      wake: {
        kind: 'replicas',
        namespace: selector.namespace,
        labels: selector.labels,
        wanted,
        exclude: chosen.map((pod) => pod.uid),
      },
    },
  };
}
