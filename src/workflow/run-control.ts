import type { Redis } from 'ioredis';
import { ABORT_TTL_SECONDS, QUEUE_NAME, abortKey, selectorJobId } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';

/**
 * A run halted by a selector's terminal failure: the selector that failed first, and why. `attempt`
 * is when the run of its job that failed began (BullMQ's processedOn): a retry of that job clears
 * it, and the next run sets another, so the halt's job retried is told from it about to fail.
 */
export interface Halt {
  selector: number;
  cause: string;
  attempt?: number;
}

/**
 * Whether a job beginning now may go on: 'resumed' is the halting selector's own retry, which
 * withdrew the halt; 'deferred' a halt whose job was retried and has not withdrawn it yet.
 */
export type StopAtStart = 'go' | 'stopped' | 'resumed' | 'deferred';

/** How a halt reads in the abort key; the abort route writes a time there instead. */
const HALT_PREFIX = 'halt ';

/**
 * The run's stop mark in Redis, one key per run (uid, generation, runKey): an operator's abort,
 * or a halt, written by the first selector that fails terminally while several may be in progress
 * (DESIGN §4: a terminal cause fails the job and the chain stops there). Either way each job
 * stops before its next batch and fails; the retry route deletes the mark and retries them all.
 */
export class AbortFlags {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(data: SelectorJobData): string {
    return abortKey(this.prefix, data.directive.uid, data.generation, data.runKey);
  }

  async isAborted(data: SelectorJobData): Promise<boolean> {
    return (await this.redis.exists(this.key(data))) === 1;
  }

  /**
   * Halts the run for `halt` unless it is stopped already. Answers the run's halt: this one, an
   * earlier selector's (the first failure is the one the status names), or undefined when an
   * operator aborted the run.
   */
  async halt(data: SelectorJobData, halt: Halt): Promise<Halt | undefined> {
    const mark = `${HALT_PREFIX}${JSON.stringify(halt)}`;
    const set = await this.redis.set(this.key(data), mark, 'EX', ABORT_TTL_SECONDS, 'NX');
    return set === 'OK' ? halt : this.haltOf(data);
  }

  /**
   * Whether this job may go on. A run halted by this very selector, retried on its own (the
   * dashboard's retry of the failed job), is resumed: the halt is withdrawn and 'resumed'
   * answered, for the caller to retry the selectors it halted. A halt whose job was retried too
   * (the dashboard's retry of every failed job moves them all at once) is about to be withdrawn:
   * 'deferred', for this job to look again later rather than fail. Otherwise stopped when the run
   * has a stop mark, aborted or halted.
   */
  async stopOf(data: SelectorJobData): Promise<StopAtStart> {
    const mark = await this.redis.get(this.key(data));
    if (mark === null) return 'go';
    const halt = haltIn(mark);
    if (halt === undefined) return 'stopped';
    if (halt.selector !== data.selectorIndex) {
      return (await this.isRetried(data, halt)) ? 'deferred' : 'stopped';
    }
    await this.redis.del(this.key(data));
    return 'resumed';
  }

  /**
   * Whether the stop this job met is being lifted: the mark is gone (the retry route, or the
   * halting selector resumed), or it is a halt whose job was retried since.
   */
  async isLifted(data: SelectorJobData): Promise<boolean> {
    const mark = await this.redis.get(this.key(data));
    if (mark === null) return true;
    const halt = haltIn(mark);
    if (halt === undefined || halt.selector === data.selectorIndex) return false;
    return this.isRetried(data, halt);
  }

  /** Whether the halting selector's job was retried since its failed run began (it exists still). */
  private async isRetried(data: SelectorJobData, halt: Halt): Promise<boolean> {
    if (halt.attempt === undefined) return false;
    const id = selectorJobId(data.directive.uid, data.generation, data.runKey, halt.selector);
    const [began, created] = await this.redis.hmget(
      `${this.prefix}:${QUEUE_NAME}:${id}`,
      'processedOn',
      'timestamp',
    );
    return created !== null && began !== String(halt.attempt);
  }

  /** The run's halt; undefined when it is not stopped, or was aborted by an operator. */
  async haltOf(data: SelectorJobData): Promise<Halt | undefined> {
    const mark = await this.redis.get(this.key(data));
    return mark === null ? undefined : haltIn(mark);
  }
}

function haltIn(mark: string): Halt | undefined {
  if (!mark.startsWith(HALT_PREFIX)) return undefined;
  return JSON.parse(mark.slice(HALT_PREFIX.length)) as Halt;
}
