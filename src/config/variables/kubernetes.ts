/** Which Kubernetes API pod-bouncer talks to, and how fast. */

import { BOTH, config, fixed, integer, text, inGroup } from './declare.js';

/** The kubeconfig, its context and the client-side rate limit. */
export const KUBERNETES = inGroup('Kubernetes API', [
  {
    name: 'KUBECONFIG',
    schema: text(),
    defaultText: 'in-cluster, else ~/.kube/config',
    roles: BOTH,
    doc: 'kubeconfig file of the Kubernetes API to use',
    chart: fixed('in-cluster: the pods use their service accounts'),
  },
  {
    name: 'KUBE_CONTEXT',
    schema: text(),
    defaultText: "the kubeconfig's current context",
    roles: BOTH,
    doc: 'context of the kubeconfig to use',
    chart: fixed('in-cluster: no kubeconfig'),
  },
  {
    name: 'KUBE_QPS',
    schema: integer(1, 100_000),
    default: 50,
    roles: BOTH,
    doc: "client-side rate limit towards the API server (every request but the watch caches' lists and watches); directives' namespaces take turns at it",
    chart: config,
  },
  {
    name: 'KUBE_BURST',
    schema: integer(1, 100_000),
    default: 100,
    roles: BOTH,
    doc: 'requests allowed at once above KUBE_QPS',
    chart: config,
  },
]);
