import type { SelectorJobData } from '../queue/selector-job.js';

/**
 * The fields of a directive's hash of sent pods (`sent-pods.ts`): a selector's entries, and
 * beside them what each of its jobs kept when it chose.
 */

/** One field per selector: its namespace and its labels, sorted, whatever run or generation. */
export function fieldOf(data: SelectorJobData): string {
  const labels = Object.entries(data.selector.labels)
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return `${data.selector.namespace}/${labels.join(',')}`;
}

/** The field of one job (its run and selector index) beside its selector's entries. */
export function jobField(data: SelectorJobData): string {
  return `${fieldOf(data)}#${data.generation}.${data.runKey}.${data.selectorIndex}`;
}

/** Beside it, the job's originals (`originalsAtChoice`) until its first entry carries them. */
export const originalsField = (data: SelectorJobData): string => `${jobField(data)}:originals`;
