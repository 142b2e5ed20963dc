// Shared setup for the simulator tests: a simulator plus the real client-node APIs pointed at it.
import {
  ApiException,
  AuthenticationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  Watch,
} from '@kubernetes/client-node';
import { expect } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import type { Simulator, SimulatorOptions } from '../../src/sim/index.js';

export const GROUP = 'internal.gloo.solo.io';
export const VERSION = 'v2';
export const PLURAL = 'podbouncedirectives';

export interface SimClients {
  sim: Simulator;
  kc: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  auth: AuthenticationV1Api;
  eventsV1: EventsV1Api;
}

export async function startWithClients(options: SimulatorOptions = {}): Promise<SimClients> {
  const sim = await startSimulator(options);
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
  return {
    sim,
    kc,
    core: kc.makeApiClient(CoreV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    auth: kc.makeApiClient(AuthenticationV1Api),
    eventsV1: kc.makeApiClient(EventsV1Api),
  };
}

export interface StatusBody {
  kind: string;
  status: string;
  message: string;
  reason: string;
  code: number;
  details?: { causes?: Array<{ field?: string; reason: string; message: string }> };
}

/** Awaits a call that must fail with `code`; returns the parsed Status body. */
export async function apiError(call: Promise<unknown>, code: number): Promise<StatusBody> {
  let caught: unknown;
  try {
    await call;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected an HTTP ${code} error`).toBeInstanceOf(ApiException);
  const error = caught as ApiException<string>;
  expect(error.code).toBe(code);
  const body = JSON.parse(error.body) as StatusBody;
  expect(body).toMatchObject({ kind: 'Status', status: 'Failure', code });
  return body;
}

/** Polls until `probe` returns a value other than undefined/false, or fails after timeoutMs. */
export async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface WatchedEvent {
  type: string;
  object: {
    kind?: string;
    metadata: { name: string; uid: string; resourceVersion: string; deletionTimestamp?: unknown };
    [key: string]: unknown;
  };
}

/** Opens a watch with client-node's Watch and records what arrives. */
export async function recordWatch(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined> = {},
) {
  const events: WatchedEvent[] = [];
  let finish: (err: unknown) => void = () => undefined;
  const done = new Promise<unknown>((resolve) => (finish = resolve));
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object }),
    (err) => finish(err ?? null),
  );
  return { events, done, stop: () => controller.abort() };
}

export function directiveBody(name: string, podsToBounce: unknown[], namespace = 'istio-system') {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'PodBounceDirective',
    metadata: { name, namespace },
    spec: {
      meshRef: { name: 'istiod-istio-system-cluster-1', namespace: 'gloo-mesh' },
      podsToBounce,
    },
  };
}
