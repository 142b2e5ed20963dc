import type { RootCertSync } from '../directive/types.js';
import type { LabelledPod } from '../kube/pod-operations.js';
import type { PodInfo } from '../kube/pods.js';
import type { KubeGateway } from '../kube/gateway.js';

/** The API-server reads a dry run makes: never a write. */
export type PlanKube = Pick<
  KubeGateway,
  'getDirective' | 'listNamespacePods' | 'rolloutOwnerOf' | 'readSecretKey' | 'readConfigMapKey'
>;

/** What the rootCertSync gate's two keys hold now (undefined: the object or key is missing). */
export interface GateKeys {
  secret: Buffer | undefined;
  configMap: string | undefined;
}

function matches(own: Record<string, string>, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([key, value]) => own[key] === value);
}

/**
 * The reads of one dry run, each made once however many selectors need it. A namespace's pods
 * come from one LIST of that namespace, each selector's filtered from it by its labels (equality
 * only, as `podsToBounce` selects): a Gloo directive of 1000 selectors over 200 namespaces costs
 * 200 LISTs, not 1000, of the process's API budget. A LIST rather than the pod watch cache: a plan
 * says what the API server holds as it is made, not what a cache (possibly not synced for the
 * namespace) last saw. A rootCertSync gate's keys are read once per distinct gate.
 */
export class PlanReads {
  private readonly namespaces = new Map<string, Promise<LabelledPod[]>>();
  private readonly gates = new Map<string, Promise<GateKeys>>();

  constructor(readonly kube: PlanKube) {}

  /** The pods of `namespace` whose labels include every one of `labels`. */
  async pods(namespace: string, labels: Record<string, string>): Promise<PodInfo[]> {
    let list = this.namespaces.get(namespace);
    if (list === undefined) {
      list = this.kube.listNamespacePods(namespace);
      this.namespaces.set(namespace, list);
    }
    return (await list).filter((pod) => matches(pod.labels, labels)).map(({ pod }) => pod);
  }

  /** The Secret key and ConfigMap key a rootCertSync gate compares. */
  gateKeys(sync: RootCertSync): Promise<GateKeys> {
    const { secretRef, secretKey, configMapRef, configMapKey } = sync;
    const id = JSON.stringify([secretRef, secretKey, configMapRef, configMapKey]);
    let keys = this.gates.get(id);
    if (keys === undefined) {
      keys = Promise.all([
        this.kube.readSecretKey(secretRef, secretKey),
        this.kube.readConfigMapKey(configMapRef, configMapKey),
      ]).then(([secret, configMap]) => ({ secret, configMap }));
      this.gates.set(id, keys);
    }
    return keys;
  }
}
