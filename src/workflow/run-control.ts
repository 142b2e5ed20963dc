import type { Redis } from 'ioredis';
import { isPaused } from '../directive/paused.js';
import { abortKey } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import type { StepContext } from './context.js';

/** The abort route's marks in Redis: one key per run (uid, generation, runKey). */
export class AbortFlags {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async isAborted(data: SelectorJobData): Promise<boolean> {
    const key = abortKey(this.prefix, data.directive.uid, data.generation, data.runKey);
    return (await this.redis.exists(key)) === 1;
  }
}

/**
 * Whether the directive is paused right now: the watch cache's copy when it has one (it follows
 * the annotation within a watch event), else the copy read when this run of the job began.
 */
export function pausedNow(context: StepContext): boolean {
  const cached = context.deps.directives?.peek(context.data.directive);
  const directive =
    cached !== undefined && cached.metadata.uid === context.data.directive.uid
      ? cached
      : context.directive;
  return isPaused(directive);
}
