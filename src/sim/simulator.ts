// The Simulator facade: an HTTP API server on an ephemeral port plus programmatic controls.
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rolloutStatus } from '../kube/rollout-status.js';
import { STORE_KEYS } from './apps-util.js';
import { Cluster } from './cluster.js';
import { defaultCrdPath, loadCrd } from './crd.js';
import type { CrdDefinition } from './crd.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { matchesSelector, selectorFromLabels } from './label-selector.js';
import { mergePatch } from './merge-patch.js';
import type { DirectiveObject, KubeObject, PodObject } from './objects.js';
import { applyDirective } from './directives.js';
import { encodeSecretData } from './secrets.js';
import { createApiServer } from './server.js';
import type {
  FaultSpec,
  NewPod,
  PodDeletion,
  PodDisruptionBudgetSpec,
  RequestLogEntry,
  Simulator,
  SimulatorOptions,
  TokenUser,
  WorkloadKind,
  WorkloadRollout,
  WorkloadSpec,
} from './types.js';

const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** Starts a simulator; resolves once it listens. Close it with `close()`. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const crd = await loadCrd(options.crdPath ?? defaultCrdPath());
  const sim = new SimulatedCluster(crd, options);
  await sim.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return sim;
}

class SimulatedCluster implements Simulator {
  private address = '';
  private readonly cluster: Cluster;
  private readonly server: Server;
  private closing?: Promise<void>;
  private accepted = 0;

  constructor(crd: CrdDefinition, options: SimulatorOptions) {
    this.cluster = new Cluster(crd, options, () => this.url.replace(/^https?:\/\//, ''));
    this.server = createApiServer(this.cluster);
    this.server.on('connection', () => {
      this.accepted += 1;
    });
  }

  connectionsAccepted(): number {
    return this.accepted;
  }

  get url(): string {
    return this.address;
  }

  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        const { address, port: bound } = this.server.address() as AddressInfo;
        this.address = `http://${address.includes(':') ? `[${address}]` : address}:${bound}`;
        resolve();
      });
    });
  }

  kubeconfigYaml(user?: string): string {
    return kubeconfigYaml(this.url, user);
  }

  writeKubeconfig(path: string, user?: string): Promise<void> {
    return writeFile(path, this.kubeconfigYaml(user), { mode: 0o600 });
  }

  close(): Promise<void> {
    this.closing ??= new Promise((resolve) => {
      this.cluster.timers.clear();
      this.cluster.watches.dropAll();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  addWorkload(spec: WorkloadSpec): void {
    this.cluster.workloads.add(spec);
  }

  getWorkload(kind: WorkloadKind, namespace: string, name: string): KubeObject | undefined {
    return this.cluster.store.get(STORE_KEYS[kind], namespace, name);
  }

  workloadRollout(kind: WorkloadKind, namespace: string, name: string): WorkloadRollout {
    const obj = this.getWorkload(kind, namespace, name);
    if (!obj) throw new Error(`${kind} ${namespace}/${name} does not exist`);
    if (kind === 'ReplicaSet') {
      throw new Error('kubectl rollout status serves Deployments, StatefulSets and DaemonSets');
    }
    return rolloutStatus(kind, obj);
  }

  restartWorkload(kind: WorkloadKind, namespace: string, name: string, at?: string): void {
    const current = this.getWorkload(kind, namespace, name);
    if (!current) throw new Error(`${kind} ${namespace}/${name} does not exist`);
    const patch = {
      spec: {
        template: { metadata: { annotations: { [RESTARTED_AT]: at ?? new Date().toISOString() } } },
      },
    };
    const type = this.cluster.type(STORE_KEYS[kind]);
    this.cluster.writer.update(type, current, mergePatch(current, patch));
    this.cluster.apps.flush();
  }

  nodeNames(): string[] {
    return [...this.cluster.apps.nodes];
  }

  setReadinessDelay(namespace: string, workload: string, delayMs: number | null): void {
    this.cluster.workloads.setReadinessDelay(namespace, workload, delayMs);
  }

  failReadiness(namespace: string, pod: string): void {
    this.cluster.pods.failReadiness(namespace, pod);
  }

  addPod(pod: NewPod): PodObject {
    const { controller, ...spec } = pod;
    return this.cluster.pods.create({
      ...spec,
      ready: pod.ready ?? true,
      ...(controller === undefined ? {} : { owner: { ...controller, controller: true } }),
    });
  }

  listPods(namespace: string, labels: Record<string, string> = {}): PodObject[] {
    const selector = selectorFromLabels(labels);
    return this.cluster.pods
      .list(namespace)
      .filter((pod) => matchesSelector(selector, pod.metadata.labels));
  }

  deletionsByUid(): Map<string, number> {
    return this.cluster.ledger.deletionsByUid();
  }

  deleteRequestsByUid(): Map<string, number> {
    return this.cluster.ledger.requestsByUid();
  }

  deletedPods(): PodDeletion[] {
    return this.cluster.ledger.deleted();
  }

  onPodDeleted(listener: (p: Omit<PodDeletion, 'at'>) => void): () => void {
    return this.cluster.ledger.onDeleted(listener);
  }

  putConfigMap(namespace: string, name: string, data: Record<string, string>): void {
    this.upsert('configmaps', namespace, name, { data: { ...data } });
  }

  putSecret(namespace: string, name: string, data: Record<string, string>): void {
    this.upsert('secrets', namespace, name, { type: 'Opaque', data: encodeSecretData(data) });
  }

  addPodDisruptionBudget(pdb: PodDisruptionBudgetSpec): void {
    const spec: Record<string, unknown> = { selector: { matchLabels: { ...pdb.labels } } };
    if (pdb.minAvailable !== undefined) spec.minAvailable = pdb.minAvailable;
    if (pdb.maxUnavailable !== undefined) spec.maxUnavailable = pdb.maxUnavailable;
    this.upsert('poddisruptionbudgets', pdb.namespace, pdb.name, { spec });
  }

  applyDirective(obj: object): DirectiveObject {
    return applyDirective(this.cluster, obj);
  }

  getDirective(namespace: string, name: string): DirectiveObject | undefined {
    return this.cluster.store.get(this.cluster.directiveType.storeKey, namespace, name) as
      DirectiveObject | undefined;
  }

  directiveState(namespace: string, name: string): string | undefined {
    const stored = this.cluster.store.peek(this.cluster.directiveType.storeKey, namespace, name);
    return (stored as DirectiveObject | undefined)?.status?.state;
  }

  deleteDirective(namespace: string, name: string): void {
    const type = this.cluster.directiveType;
    this.cluster.store.remove(type.storeKey, namespace, name);
    this.cluster.patcher.forget(type, namespace, name);
  }

  registerToken(token: string, user: TokenUser): void {
    this.cluster.tokens.register(token, user);
  }

  requests(): RequestLogEntry[] {
    return this.cluster.log.all();
  }

  resetRequests(): void {
    this.cluster.log.reset();
  }

  events(): object[] {
    const { store } = this.cluster;
    return [...store.list('events'), ...store.list('events.k8s.io/events')].sort(byCreation);
  }

  setFaults(f: FaultSpec | null): void {
    this.cluster.faults.set(f);
  }

  dropWatches(): void {
    this.cluster.watches.dropAll();
  }

  stallWatches(): void {
    this.cluster.watches.stallAll();
  }

  holdWatchEvents(): () => void {
    return this.cluster.watches.hold();
  }

  schedule(delayMs: number, action: () => void): void {
    this.cluster.timers.after(delayMs, action);
  }

  /** Create or replace fields of an object; every call is a write (new resourceVersion, watch event). */
  private upsert(
    storeKey: string,
    namespace: string,
    name: string,
    fields: Record<string, unknown>,
  ): void {
    const { store, writer } = this.cluster;
    const type = this.cluster.type(storeKey);
    const current = store.get(storeKey, namespace, name);
    if (current) store.update(storeKey, { ...current, ...fields });
    else writer.create(type, namespace, { metadata: { name, namespace }, ...fields });
  }
}

function byCreation(a: KubeObject, b: KubeObject): number {
  const at = (obj: KubeObject): number => Date.parse(obj.metadata.creationTimestamp) || 0;
  return at(a) - at(b);
}
