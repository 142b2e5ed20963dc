import type { PodSelector } from '../directive/types.js';

export type SelectorStep = 'rootCertSync' | 'select' | 'bounce' | 'waitForReplicas' | 'done';

export interface ChosenPod {
  name: string;
  uid: string;
}

/**
 * A selector job's persisted progress. Every effect on the cluster is recorded here before or
 * after it happens, so a job re-run after a crash resumes without repeating the effect.
 */
export interface SelectorProgress {
  step: SelectorStep;
  /** When the current wait began (epoch ms); cleared when a wait ends or times out. */
  waitStartedAt?: number;
  /** The pods this selector bounces, chosen once and never re-chosen. */
  chosen?: ChosenPod[];
  /** Uids whose deletion was sent and answered, or found already done. */
  bounced?: string[];
  /** Uids whose deletion request was being sent: after a crash, their answer may have been lost. */
  inFlight?: string[];
}

export interface SelectorJobData {
  directive: { namespace: string; name: string; uid: string };
  generation: number;
  /** The run this job belongs to: `issuedAt` as epoch ms in decimal, or "0" (see queue/runs.ts). */
  runKey: string;
  selectorIndex: number;
  selectorCount: number;
  selector: PodSelector;
  /** RFC 3339; pods created at or after it already carry the new certificate. */
  issuedAt?: string;
  progress: SelectorProgress;
}
