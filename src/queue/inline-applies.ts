import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ObjectRef } from '../directive/types.js';
import { inlineAppliesKey } from './names.js';

/**
 * How long an inline apply holds off the controller at most: an api that died between its apply
 * and its run claim leaves the directive to the controller after this, as if it had been applied
 * by anyone else.
 */
export const INLINE_APPLY_HOLD_MS = 30_000;

/**
 * The inline applies in progress, per directive, shared by every api and worker replica (DESIGN §2
 * Runs, §4 Controller mode). An inline event is applied to the cluster before its run is claimed,
 * and a controller watching directives sees the applied object at once: were it to ingest it then,
 * the object (which names no issuance) would start a run of its own, superseded a moment later by
 * the event's. So the api marks the apply before it sends it and unmarks it once the event's run is
 * decided; the controller leaves a marked directive alone until then, and its own ingest of the
 * object is then a duplicate of the event's run.
 */
export class InlineApplies {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly holdMs = INLINE_APPLY_HOLD_MS,
  ) {}

  /** Marks an apply of `ref` as in progress; answers the token that `end` takes. */
  async begin(ref: ObjectRef): Promise<string> {
    const token = randomUUID();
    const key = inlineAppliesKey(this.prefix, ref.namespace, ref.name);
    await this.redis
      .multi()
      .zadd(key, Date.now() + this.holdMs, token)
      .pexpire(key, this.holdMs)
      .exec();
    return token;
  }

  /** The apply of `token` has its answer: it holds the directive off no longer. */
  async end(ref: ObjectRef, token: string): Promise<void> {
    await this.redis.zrem(inlineAppliesKey(this.prefix, ref.namespace, ref.name), token);
  }

  /** How long (ms) an apply of `ref` in progress may still hold it off; 0 when none is. */
  async heldFor(ref: ObjectRef): Promise<number> {
    const key = inlineAppliesKey(this.prefix, ref.namespace, ref.name);
    const now = Date.now();
    const [, latest] = await this.redis.zrevrangebyscore(
      key,
      '+inf',
      now,
      'WITHSCORES',
      'LIMIT',
      0,
      1,
    );
    return latest === undefined ? 0 : Math.max(1, Number(latest) - now);
  }
}
