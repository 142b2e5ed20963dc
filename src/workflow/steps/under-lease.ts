import { AbortedError } from '../../errors.js';
import { SpecChangedError, directiveMoved } from '../directive-check.js';
import type { PendingWait, StepContext } from '../context.js';
import { countsOf } from './waits.js';

/**
 * How long a job waits, holding its worker slot, for the directive's lease: an older run's batch
 * in flight is answered within this as a rule. Beyond it (a holder that died keeps the lease until
 * its BullMQ lock lapses) the job is parked and re-checked like any other wait.
 */
const INLINE_WAIT_MS = 2000;
const INLINE_POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Why an effect was not done: the run was superseded, its directive deleted, or another job holds
 * the lease for now.
 */
export type LeaseRefusal = { end: 'superseded' | 'directive-deleted' } | { wait: PendingWait };

function leaseWait(context: StepContext): PendingWait {
  const bounced = new Set(context.progress.bounced ?? []);
  return {
    what: "the directive's other run to have its batch in flight answered",
    status: 'the batch in flight of another run',
    counts: countsOf(context, bounced),
    timeoutSeconds: context.deps.settings.readinessTimeoutSeconds,
  };
}

/**
 * Runs `effect` (choosing pods, sending a batch) under the directive's bounce lease
 * (`bounce-lease.ts`), given back once it is done, whatever its outcome. Refused when a newer run
 * was accepted or the directive deleted (this run sends nothing more) or while another job holds
 * the lease; throws AbortedError when the run was stopped, SpecChangedError when the directive's
 * spec changed with no newer run to take it over.
 */
export async function underLease<T>(
  context: StepContext,
  effect: () => Promise<T>,
): Promise<{ value: T } | LeaseRefusal> {
  const deadline = Date.now() + INLINE_WAIT_MS;
  let answer = await context.lease.acquire();
  while (answer === 'busy' && Date.now() < deadline) {
    await sleep(INLINE_POLL_MS);
    answer = await context.lease.acquire();
  }
  if (answer === 'superseded') return { end: 'superseded' };
  if (answer === 'busy') return { wait: leaseWait(context) };
  try {
    // Read again under the lease: a run stopped meanwhile (aborted, or halted by a failed
    // selector, which takes the lease before it says FAILED) sends nothing more.
    if ((await context.deps.aborts?.isAborted(context.data)) === true) throw new AbortedError();
    // A directive deleted or edited mid-run stops between batches too, not only when a job
    // starts; under the lease, so a directive re-created under the name takes it only after this.
    const moved = await directiveMoved(context.deps, context.data);
    if (moved === 'directive-deleted' || moved === 'superseded') {
      context.note(
        `directive ${moved === 'superseded' ? 'superseded' : 'deleted'}; nothing more bounced`,
      );
      return { end: moved };
    }
    if (moved !== undefined) throw new SpecChangedError(moved);
    return { value: await effect() };
  } finally {
    // Not given back (Redis gone): it lapses with this job's BullMQ lock when the job parks or ends.
    await context.lease
      .release()
      .catch((error: unknown) => context.log.warn({ err: error }, 'could not give the lease back'));
  }
}
