import { podByPod, READ_OWNER_SCALE, type BounceStrategy } from './mode.js';

/**
 * `evict`: the Eviction API with the same uid guard, so PodDisruptionBudgets are honoured; a 429
 * is `blocked` (the step waits, woken by the pods' changes, and tries again).
 */
export const evictMode: BounceStrategy = {
  mode: 'evict',
  ...podByPod,
  async bouncePod(context, pod) {
    const outcome = await context.deps.kube.evictPod(
      context.data.selector.namespace,
      pod.name,
      pod.uid,
    );
    return outcome === 'blocked' ? 'blocked' : 'done';
  },
  rbac: {
    worker: [
      { apiGroup: '', resources: ['pods/eviction'], verbs: ['create'] },
      ...READ_OWNER_SCALE,
    ],
    api: [],
  },
};
