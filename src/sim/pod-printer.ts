// A pod's Table row as the API server prints it: the rules of printPod in kubernetes'
// pkg/printers/internalversion/printers.go (READY of every container and started sidecar, STATUS
// from the phase, the init containers, the containers' states and deletion, RESTARTS with the age
// of the last one), and IP, NODE, NOMINATED NODE and READINESS GATES at priority 1.
import { ageOf, humanDuration } from './human-duration.js';
import type { KubeObject } from './objects.js';
import { column, CREATION_TIMESTAMP_DESCRIPTION, NAME_COLUMN } from './table-columns.js';
import type { Printer, RowCondition } from './table-columns.js';

interface ContainerState {
  waiting?: { reason?: string };
  running?: object;
  terminated?: { exitCode?: number; signal?: number; reason?: string; finishedAt?: string };
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
}

interface PodShape {
  metadata: KubeObject['metadata'];
  spec?: {
    containers?: unknown[];
    initContainers?: Array<{ name: string; restartPolicy?: string }>;
    nodeName?: string;
    readinessGates?: Array<{ conditionType: string }>;
  };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    podIPs?: Array<{ ip: string }>;
    nominatedNodeName?: string;
    conditions?: Condition[];
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
}

const wide = { priority: 1 };

export const podPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    column('Age', 'string', CREATION_TIMESTAMP_DESCRIPTION),
    column(
      'IP',
      'string',
      'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      wide,
    ),
    column('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', wide),
    column(
      'Nominated Node',
      'string',
      'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
      wide,
    ),
    column(
      'Readiness Gates',
      'string',
      'If specified, all readiness gates will be evaluated for pod readiness.',
      wide,
    ),
  ],
  row: (obj, now) => printPod(obj, now),
};

/** The running tally of one pass over a pod's statuses. */
interface Tally {
  reason: string;
  ready: number;
  restarts: number;
  /** Milliseconds since the epoch of the latest restart seen; 0 for none. */
  lastRestart: number;
}

function printPod(pod: PodShape, now: number): { cells: unknown[]; conditions?: RowCondition[] } {
  const status = pod.status ?? {};
  const tally: Tally = { reason: phaseReason(status), ready: 0, restarts: 0, lastRestart: 0 };
  const sidecars = sidecarNames(pod);
  const total = (pod.spec?.containers?.length ?? 0) + sidecars.size;
  const init = countInitContainers(pod, sidecars, tally);
  if (!init.initializing || conditionTrue(status.conditions, 'Initialized')) {
    // Past initialization only the sidecars' restarts count with the containers'.
    tally.restarts = init.sidecars.restarts;
    tally.lastRestart = init.sidecars.lastRestart;
    countContainers(status, tally);
  }
  return {
    cells: [
      pod.metadata.name,
      `${tally.ready}/${total}`,
      deletionReason(pod, tally.reason),
      restartsCell(tally, now),
      ageOf(pod.metadata.creationTimestamp, now),
      ...wideCells(pod),
    ],
    ...completion(status.phase),
  };
}

/** The STATUS before any container is looked at: the pod's reason, else its phase. */
function phaseReason(status: NonNullable<PodShape['status']>): string {
  const gated = (status.conditions ?? []).some(
    (c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated',
  );
  return gated ? 'SchedulingGated' : status.reason || status.phase || '';
}

/** A pod being deleted is Terminating, unless it already ended (or its node was lost). */
function deletionReason(pod: PodShape, reason: string): string {
  if (pod.metadata.deletionTimestamp === undefined) return reason;
  const status = pod.status ?? {};
  if (status.reason === 'NodeLost') return 'Unknown';
  return status.phase === 'Succeeded' || status.phase === 'Failed' ? reason : 'Terminating';
}

function restartsCell(tally: Tally, now: number): string {
  if (tally.restarts === 0 || tally.lastRestart === 0) return String(tally.restarts);
  return `${tally.restarts} (${humanDuration(now - tally.lastRestart)} ago)`;
}

/** Init containers with restartPolicy Always: sidecars, counted among the pod's containers. */
function sidecarNames(pod: PodShape): Set<string> {
  return new Set(
    (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name),
  );
}

function lastTermination(status: ContainerStatus): number {
  const finishedAt = status.lastState?.terminated?.finishedAt;
  return finishedAt ? Date.parse(finishedAt) || 0 : 0;
}

function addRestarts(
  into: { restarts: number; lastRestart: number },
  status: ContainerStatus,
): void {
  into.restarts += status.restartCount ?? 0;
  into.lastRestart = Math.max(into.lastRestart, lastTermination(status));
}

/** Whether the walk over the init containers goes past this one: done, or a started sidecar. */
function initDone(container: ContainerStatus, isSidecar: boolean, tally: Tally): boolean {
  const terminated = container.state?.terminated;
  if (terminated !== undefined && (terminated.exitCode ?? 0) === 0) return true;
  if (!isSidecar || container.started !== true) return false;
  if (container.ready === true) tally.ready += 1;
  return true;
}

/**
 * Walks the init containers until the first that is not done (nor a started sidecar): its state
 * is the pod's STATUS, "Init:…". Says whether initialization is still under way, and the
 * restarts of the sidecars.
 */
function countInitContainers(
  pod: PodShape,
  sidecars: Set<string>,
  tally: Tally,
): { initializing: boolean; sidecars: { restarts: number; lastRestart: number } } {
  const statuses = pod.status?.initContainerStatuses ?? [];
  const ofSidecars = { restarts: 0, lastRestart: 0 };
  for (const [index, container] of statuses.entries()) {
    addRestarts(tally, container);
    const isSidecar = sidecars.has(container.name);
    if (isSidecar) addRestarts(ofSidecars, container);
    if (initDone(container, isSidecar, tally)) continue;
    tally.reason = initReason(container.state, index, pod.spec?.initContainers?.length ?? 0);
    return { initializing: true, sidecars: ofSidecars };
  }
  return { initializing: false, sidecars: ofSidecars };
}

function initReason(state: ContainerState | undefined, index: number, count: number): string {
  const terminated = state?.terminated;
  if (terminated !== undefined) {
    if (terminated.reason) return `Init:${terminated.reason}`;
    return terminated.signal
      ? `Init:Signal:${terminated.signal}`
      : `Init:ExitCode:${terminated.exitCode ?? 0}`;
  }
  const waiting = state?.waiting?.reason;
  if (waiting && waiting !== 'PodInitializing') return `Init:${waiting}`;
  return `Init:${index}/${count}`;
}

/** The containers, last to first: the first one's state has the last word on STATUS. */
function countContainers(status: NonNullable<PodShape['status']>, tally: Tally): void {
  let hasRunning = false;
  const statuses = status.containerStatuses ?? [];
  for (const container of [...statuses].reverse()) {
    addRestarts(tally, container);
    const reason = containerReason(container.state);
    if (reason !== undefined) tally.reason = reason;
    else if (container.ready === true && container.state?.running !== undefined) {
      hasRunning = true;
      tally.ready += 1;
    }
  }
  // A pod whose last container completed while another still runs is not Completed.
  if (tally.reason === 'Completed' && hasRunning)
    tally.reason = conditionTrue(status.conditions, 'Ready') ? 'Running' : 'NotReady';
}

function containerReason(state: ContainerState | undefined): string | undefined {
  if (state?.waiting?.reason) return state.waiting.reason;
  const terminated = state?.terminated;
  if (terminated === undefined) return undefined;
  if (terminated.reason) return terminated.reason;
  return terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
}

function conditionTrue(conditions: Condition[] | undefined, type: string): boolean {
  return (conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

function wideCells(pod: PodShape): string[] {
  const status = pod.status ?? {};
  const ip = status.podIPs?.[0]?.ip ?? status.podIP;
  const gates = pod.spec?.readinessGates ?? [];
  const open = gates.filter((gate) => conditionTrue(status.conditions, gate.conditionType)).length;
  return [
    ip || '<none>',
    pod.spec?.nodeName || '<none>',
    status.nominatedNodeName || '<none>',
    gates.length > 0 ? `${open}/${gates.length}` : '<none>',
  ];
}

/** Succeeded and Failed pods' rows say they are completed (kubectl may hide them). */
function completion(phase: string | undefined): { conditions?: RowCondition[] } {
  if (phase === 'Succeeded') {
    const message = 'The pod has completed successfully.';
    return { conditions: [{ type: 'Completed', status: 'True', reason: 'Succeeded', message }] };
  }
  if (phase === 'Failed') {
    const message = 'The pod failed.';
    return { conditions: [{ type: 'Completed', status: 'True', reason: 'Failed', message }] };
  }
  return {};
}
