import { podByPod, READ_OWNER_SCALE, type BounceStrategy } from './mode.js';

/** `delete`: DELETE with a uid precondition; 404 and a uid conflict both mean "already gone". */
export const deleteMode: BounceStrategy = {
  mode: 'delete',
  ...podByPod,
  async bouncePod(context, pod) {
    await context.deps.kube.deletePod(context.data.selector.namespace, pod.name, pod.uid);
    return 'done';
  },
  rbac: {
    worker: [{ apiGroup: '', resources: ['pods'], verbs: ['delete'] }, ...READ_OWNER_SCALE],
    api: [],
  },
};
