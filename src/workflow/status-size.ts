import type { Directive } from '../directive/types.js';
import { PermanentError } from '../errors.js';

/**
 * The API server refuses an object larger than about 1.5 MiB (etcd's request limit, with the
 * object's metadata). A status write refused after a selector's pods are gone would leave the
 * directive saying nothing of them, so the size is checked before the pods are recorded.
 */
export const OBJECT_SIZE_LIMIT = 1_572_864;

/** Room kept for what the status says besides podsBounced (conditions, error), which grows. */
const HEADROOM = 8192;

/**
 * The directive's size in bytes once `podsBounced[index]` lists `names` (the directive as last
 * read or written, its other selectors' pods included).
 */
export function sizeWithPods(directive: Directive, index: number, names: string[]): number {
  const podsBounced = [...(directive.status?.podsBounced ?? [])];
  while (podsBounced.length <= index) podsBounced.push({ bouncedPods: [] });
  podsBounced[index] = { bouncedPods: names };
  const status = { ...directive.status, podsBounced };
  return Buffer.byteLength(JSON.stringify({ ...directive, status }));
}

/** Fails the selector, before anything is bounced, when its pod names would not fit. */
export function assertStatusFits(directive: Directive, index: number, names: string[]): void {
  const size = sizeWithPods(directive, index, names);
  if (size + HEADROOM <= OBJECT_SIZE_LIMIT) return;
  throw new PermanentError(
    `the status with its ${names.length} pod name(s) would make the directive ${size} bytes, over the API server's object limit of ${OBJECT_SIZE_LIMIT} bytes (less ${HEADROOM} kept for conditions); nothing was bounced`,
  );
}
