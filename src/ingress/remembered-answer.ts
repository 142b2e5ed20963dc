import { runJobIds, runKeyOf } from '../queue/names.js';
import type { AcceptedEvent } from './ingest.js';

/**
 * What Redis keeps of an accepted event's answer for the repeats of a delivery (a CloudEvent's
 * source and id, a Standard Webhooks `webhook-id`): the run it names and its selector count. The
 * job ids follow from these (`runJobIds`), so a remembered id costs the same few hundred bytes
 * for a directive of one selector or of a thousand, not the answer's ~57 bytes per selector.
 */
export interface AnsweredRun {
  uid: string;
  generation: number;
  /** The run's issuance (its runKey follows from it); absent when it has none. */
  issuedAt?: string;
  selectors: number;
}

/** The run an answer names, without what follows from it. */
export function answeredRun(answer: AcceptedEvent): AnsweredRun {
  const { uid, generation, issuedAt, selectors } = answer;
  return { uid, generation, ...(issuedAt === undefined ? {} : { issuedAt }), selectors };
}

/** The answer a repeat of a delivery gets: the first delivery's, as a duplicate. */
export function duplicateAnswer(directive: string, run: AnsweredRun): AcceptedEvent {
  const { uid, generation, issuedAt, selectors } = run;
  const jobIds = runJobIds({ uid, generation, runKey: runKeyOf(issuedAt) }, selectors);
  return {
    directive,
    uid,
    generation,
    ...(issuedAt === undefined ? {} : { issuedAt }),
    selectors,
    jobIds,
    duplicate: true,
  };
}
