// The simulator's Table printers against the rules they mirror: apimachinery's HumanDuration
// (its own test cases), kubectl's printPod, and apiextensions-apiserver's column cells.
import { describe, expect, it } from 'vitest';
import { crdPrinter } from '../../src/sim/crd-columns.js';
import { humanDuration } from '../../src/sim/human-duration.js';
import type { KubeObject } from '../../src/sim/objects.js';
import { podPrinter } from '../../src/sim/pod-printer.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [70 * S, '70s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [190 * S, '3m10s'],
    [10 * M - 1, '9m59s'],
    [10 * M + S, '10m'],
    [3 * H - 1, '179m'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H + 59 * M, '8h'],
    [47 * H, '47h'],
    [49 * H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D + 23 * H, '8d'],
    [367 * D, '367d'],
    [2 * Y - 1, '729d'],
    [2 * Y + 24 * H - 1, '2y'],
    [2 * Y + 25 * H, '2y1d'],
    [8 * Y - 1, '7y364d'],
    [8 * Y + 364 * D, '8y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

const NOW = Date.parse('2026-12-02T12:00:00Z');
const AGO = (ms: number): string => new Date(NOW - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(spec: object, status: object, metadata: object = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'n',
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: AGO(5 * M),
      ...metadata,
    },
    spec: { containers: [{ name: 'app' }], ...spec },
    status,
  };
}

const running = { running: { startedAt: AGO(5 * M) } };
/** READY, STATUS and RESTARTS of a pod. */
const printed = (obj: KubeObject) => podPrinter.row(obj, NOW).cells.slice(1, 4);

describe('the pod printer (printPod)', () => {
  it('counts ready containers, and shows the last restart of a crash-looping one', () => {
    const obj = pod(
      { containers: [{ name: 'app' }, { name: 'istio-proxy' }] },
      {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, finishedAt: AGO(3 * M) } },
          },
          { name: 'istio-proxy', ready: true, restartCount: 0, state: running },
        ],
      },
    );
    expect(printed(obj)).toEqual(['1/2', 'CrashLoopBackOff', '4 (3m ago)']);
  });

  it('shows init containers at work, and counts started sidecars as containers', () => {
    const spec = {
      initContainers: [{ name: 'setup' }, { name: 'proxy', restartPolicy: 'Always' }],
    };
    const waiting = pod(spec, {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'setup', ready: false, state: { waiting: { reason: 'ImagePullBackOff' } } },
      ],
    });
    expect(printed(waiting)).toEqual(['0/2', 'Init:ImagePullBackOff', '0']);
    const failed = pod(spec, {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'setup', state: { terminated: { exitCode: 3 } } }],
    });
    expect(printed(failed)).toEqual(['0/2', 'Init:ExitCode:3', '0']);
    const started = pod(spec, {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [
        { name: 'setup', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'proxy', ready: true, started: true, restartCount: 1, state: running },
      ],
      containerStatuses: [{ name: 'app', ready: true, state: running }],
    });
    expect(printed(started)).toEqual(['2/2', 'Running', '1']);
  });

  it('says Terminating while a pod is deleted, unless it already ended or its node is lost', () => {
    const status = {
      phase: 'Running',
      containerStatuses: [{ name: 'app', ready: true, state: running }],
    };
    const deleting = { deletionTimestamp: AGO(S) };
    expect(printed(pod({}, status, deleting))[1]).toBe('Terminating');
    expect(printed(pod({}, { ...status, reason: 'NodeLost' }, deleting))[1]).toBe('Unknown');
    const done = {
      phase: 'Succeeded',
      containerStatuses: [
        { name: 'app', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      ],
    };
    expect(printed(pod({}, done, deleting))[1]).toBe('Completed');
    expect(podPrinter.row(pod({}, done), NOW).conditions).toEqual([
      {
        type: 'Completed',
        status: 'True',
        reason: 'Succeeded',
        message: 'The pod has completed successfully.',
      },
    ]);
  });

  it('says SchedulingGated, the pod reason over the phase, and counts readiness gates', () => {
    const gated = pod(
      {},
      {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
      },
    );
    expect(printed(gated)[1]).toBe('SchedulingGated');
    expect(printed(pod({}, { phase: 'Failed', reason: 'Evicted' }))[1]).toBe('Evicted');
    const gates = pod(
      { nodeName: 'node-1', readinessGates: [{ conditionType: 'a' }, { conditionType: 'b' }] },
      {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.7' }],
        conditions: [{ type: 'a', status: 'True' }],
      },
    );
    expect(podPrinter.row(gates, NOW).cells.slice(4)).toEqual([
      '5m',
      '10.0.0.7',
      'node-1',
      '<none>',
      '1/2',
    ]);
  });
});

describe("a CRD's printer columns", () => {
  const printer = crdPrinter([
    { name: 'Count', type: 'integer', jsonPath: '.status.count' },
    { name: 'Ratio', type: 'number', jsonPath: '.status.ratio' },
    { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
    { name: 'Since', type: 'date', jsonPath: '.status.since' },
    { name: 'Labels', type: 'string', jsonPath: '.spec.labels' },
    { name: 'First', type: 'string', jsonPath: '.spec.items[*].name' },
  ]);
  const obj = (spec: object, status: object): KubeObject => ({
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: {
      name: 'x',
      namespace: 'n',
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: AGO(M),
    },
    spec,
    status,
  });

  it('makes each cell of its column type, and prints the first JSONPath result of a string column', () => {
    const row = printer.row(
      obj(
        { on: true, labels: { zone: 'b', app: 'a' }, items: [{ name: 'one' }, { name: 'two' }] },
        { count: 3.9, ratio: 0.25, since: AGO(90 * M) },
      ),
      NOW,
    );
    expect(row.cells).toEqual(['x', 3, 0.25, true, '90m', '{"app":"a","zone":"b"}', 'one']);
  });

  it('leaves a cell empty when the path finds nothing or a value of another type', () => {
    const row = printer.row(obj({ on: 'yes' }, { count: 'three', since: 'yesterday' }), NOW);
    expect(row.cells).toEqual(['x', null, null, null, '<invalid>', null, null]);
  });

  it('shows Name and Age when the CRD declares no columns, as apiextensions-apiserver does', () => {
    const bare = crdPrinter([]);
    expect(bare.columns.map((column) => [column.name, column.type])).toEqual([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(bare.row(obj({}, {}), NOW).cells).toEqual(['x', '60s']);
  });
});
