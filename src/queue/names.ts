import type { PodSelector } from '../directive/types.js';

/** The one queue every selector job goes through; keys live under QUEUE_PREFIX. */
export const QUEUE_NAME = 'bounce';

/**
 * Deterministic, colon-free job id: the same directive generation always maps to the same jobs,
 * so a repeated event cannot create a second chain.
 */
export function selectorJobId(uid: string, generation: number, selectorIndex: number): string {
  return `${uid}.g${generation}.s${selectorIndex}`;
}

/** Job name as the dashboard shows it. */
export function selectorJobName(
  directive: string,
  selectorIndex: number,
  selector: PodSelector,
): string {
  const labels = Object.entries(selector.labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  return `${directive} #${selectorIndex} ${selector.namespace}${labels ? ` ${labels}` : ''}`;
}

/** Redis key that marks a directive generation as accepted (kept after its jobs finish). */
export function acceptedKey(prefix: string, uid: string, generation: number): string {
  return `${prefix}:${QUEUE_NAME}:accepted:${uid}:${generation}`;
}

/**
 * Redis key whose presence aborts a run (set by the abort route, deleted by the retry route). The
 * worker checks it before each batch and at each re-check.
 */
export function abortKey(prefix: string, uid: string, generation: number, runKey: string): string {
  return `${prefix}:${QUEUE_NAME}:abort:${uid}.g${generation}.r${runKey}`;
}
