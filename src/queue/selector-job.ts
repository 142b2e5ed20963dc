import type { PodSelector } from '../directive/types.js';
import type { RunId } from './run-identity.js';
import type { SelectorOrder } from './selector-order.js';

/**
 * A selector job's steps, in the order they run. The workflow's runner goes from one to the next
 * (src/workflow/steps/index.ts maps each name to its function); `done` follows the last. `order`
 * (the earlier selectors it waits for) is the first step only of a run with maxConcurrentSelectors
 * > 1; a chained job starts at rootCertSync, its order kept by the chain itself.
 */
export const SELECTOR_STEPS = [
  'order',
  'rootCertSync',
  'select',
  'bounce',
  'waitForReplicas',
] as const;

export type SelectorStep = (typeof SELECTOR_STEPS)[number] | 'done';

export interface ChosenPod {
  name: string;
  uid: string;
  /** The controller owner, when there is one: its replacement is what a batch waits for. */
  owner?: { kind: string; name: string };
  /** Not Ready when chosen (a crash loop): bouncing it takes nothing down, so no replacement is owed. */
  unready?: true;
}

/**
 * A selector job's persisted progress. Every effect on the cluster is recorded here before or
 * after it happens, so a job re-run after a crash resumes without repeating the effect.
 */
export interface SelectorProgress {
  step: SelectorStep;
  /** When the current wait began (epoch ms); cleared when a wait ends or times out. */
  waitStartedAt?: number;
  /** When the directive was seen paused (epoch ms); a wait's clock does not run meanwhile. */
  pausedAt?: number;
  /** Which wait the clock times (a gate's name); another wait starts its own clock. */
  waitClock?: string;
  /** Soak after the batch that brought the bounced pods to `after`, begun at `at` (epoch ms). */
  soak?: { after: number; at: number };
  /** The bounced count whose soak is over: the next soak is after the next batch. */
  soakedAfter?: number;
  /** The pods this selector bounces, chosen once and never re-chosen. */
  chosen?: ChosenPod[];
  /** Uids whose deletion was sent and answered, or found already done. */
  bounced?: string[];
  /** Uids whose deletion request was being sent: after a crash, their answer may have been lost. */
  inFlight?: string[];
  /**
   * The second (epoch ms, whole seconds) this selector first sent a bounce in, or a pod it counts
   * as bounced was sent in by another selector of the run: only pods created in or after it may
   * be replacements of its pods (DESIGN §4 Guarantees).
   */
  firstSentAt?: number;
  /**
   * Just before the first batch: per controller owner of the chosen pods (`Kind/name`), the pods
   * it wanted less its Ready selector pods. What it misses beyond that later is down (DESIGN §4).
   */
  ownersShort?: Record<string, number>;
  /** The chosen pods last noted as no longer wanted by their owner (a scale-down mid-run). */
  noLongerWanted?: number;
  /** rollout: each chosen pod's restartable owner ("Deployment/reviews"), null when it has none. */
  podOwners?: Record<string, string | null>;
  /** rollout: owners whose restart was being sent (recorded before the patch). */
  ownersRestarting?: string[];
  /** rollout: owners restarted in this run (recorded after the patch): never restarted again. */
  ownersRestarted?: string[];
  /** rollout: owners whose rollout is complete by `kubectl rollout status` rules. */
  ownersDone?: string[];
}

export interface SelectorJobData {
  directive: { namespace: string; name: string; uid: string };
  generation: number;
  /** The run this job belongs to: `issuedAt` as epoch ms in decimal, or "0" (`run-identity.ts`). */
  runKey: string;
  /** When the run was accepted (`Run.acceptedAt`), the same in every job of the run (RFC 3339). */
  acceptedAt: string;
  selectorIndex: number;
  selectorCount: number;
  selector: PodSelector;
  /** Set when several selectors of the run may be in progress at once (maxConcurrentSelectors > 1). */
  order?: SelectorOrder;
  /** RFC 3339; pods created at or after it already carry the new certificate. */
  issuedAt?: string;
  progress: SelectorProgress;
}

/** The run a job belongs to. */
export function runOfJob(
  data: Pick<SelectorJobData, 'directive' | 'generation' | 'runKey'>,
): RunId {
  return { uid: data.directive.uid, generation: data.generation, runKey: data.runKey };
}
