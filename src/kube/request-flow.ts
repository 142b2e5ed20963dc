import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The flow an API request belongs to, as API Priority and Fairness calls it: the namespace of the
 * directive whose job sends it. Carried by the async context, so no call site names it.
 */
const flows = new AsyncLocalStorage<string>();

/** The flow of requests sent outside any job: the api, dry runs, controller mode's ingests. */
export const DEFAULT_FLOW = '';

/** Runs `work` with every API request it sends, however deep, counted in `flow`. */
export function inRequestFlow<T>(flow: string, work: () => T): T {
  return flows.run(flow, work);
}

/** The flow of the request being sent now; a namespace is never empty, so none is the default. */
export function currentRequestFlow(): string {
  return flows.getStore() ?? DEFAULT_FLOW;
}
