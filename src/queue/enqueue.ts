import type { FlowJob, FlowProducer, JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { directiveKey, type Directive } from '../directive/types.js';
import { acceptedKey, QUEUE_NAME, selectorJobId, selectorJobName } from './names.js';
import type { SelectorJobData } from './selector-job.js';

export interface EnqueueResult {
  jobIds: string[];
  duplicate: boolean;
}

/** Transient failures (API errors, lost workers) are retried with backoff before a job fails. */
export const SELECTOR_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: false,
  removeOnFail: false,
};

function selectorJobs(directive: Directive, issuedAt: Date | undefined): FlowJob[] {
  const { namespace, name, uid, generation } = directive.metadata;
  const selectors = directive.spec.podsToBounce;
  return selectors.map((selector, selectorIndex) => {
    const data: SelectorJobData = {
      directive: { namespace, name, uid },
      generation,
      selectorIndex,
      selectorCount: selectors.length,
      selector,
      ...(issuedAt ? { issuedAt: issuedAt.toISOString() } : {}),
      progress: { step: 'rootCertSync' },
    };
    return {
      name: selectorJobName(directiveKey(directive.metadata), selectorIndex, selector),
      queueName: QUEUE_NAME,
      data,
      opts: { ...SELECTOR_JOB_OPTIONS, jobId: selectorJobId(uid, generation, selectorIndex) },
    };
  });
}

/**
 * A BullMQ flow is a tree whose children finish before their parent starts, so the chain
 * "selector 0, then 1, then 2" is the tree 2 ← 1 ← 0: the last selector is the root and the first
 * the deepest leaf.
 */
function chain(jobs: FlowJob[]): FlowJob {
  const [first, ...rest] = jobs;
  if (first === undefined) throw new Error('a chain needs at least one selector job');
  return rest.reduce<FlowJob>((child, parent) => ({ ...parent, children: [child] }), first);
}

/**
 * Enqueues the whole chain of one directive generation in one Redis transaction (atomic: either
 * every job is added or none is). Job ids are deterministic, so adding an already-added chain
 * changes nothing; the accepted marker, set only after the flow is durable, tells which caller was
 * first and stays after the jobs finish, so a FINISHED or FAILED generation is still a duplicate.
 */
export async function enqueueChain(
  deps: { flows: FlowProducer; redis: Redis; prefix: string },
  directive: Directive,
  issuedAt: Date | undefined,
): Promise<EnqueueResult> {
  const { uid, generation } = directive.metadata;
  const jobIds = directive.spec.podsToBounce.map((_, index) =>
    selectorJobId(uid, generation, index),
  );
  const marker = acceptedKey(deps.prefix, uid, generation);
  if ((await deps.redis.exists(marker)) === 1) return { jobIds, duplicate: true };

  await deps.flows.add(chain(selectorJobs(directive, issuedAt)));
  const first = await deps.redis.set(marker, new Date().toISOString(), 'NX');
  return { jobIds, duplicate: first === null };
}
