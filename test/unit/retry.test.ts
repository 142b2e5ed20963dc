// Which failures the gateway retries inside a call, how many times and how long it waits:
// the pure policy, then the real client-node against the simulator's injected faults.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { ConflictError, NotFoundError, PermanentError, TransientError } from '../../src/errors.js';
import { KubeGateway } from '../../src/kube/gateway.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, shouldRetry } from '../../src/kube/retry.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

const policy = DEFAULT_RETRY_POLICY;

describe('retry policy', () => {
  it('retries transient failures only, up to the number of attempts', () => {
    const transient = new TransientError('x');
    expect(shouldRetry(transient, 1, policy)).toBe(true);
    expect(shouldRetry(transient, policy.attempts - 1, policy)).toBe(true);
    expect(shouldRetry(transient, policy.attempts, policy)).toBe(false);
    expect(shouldRetry(new NotFoundError('x'), 1, policy)).toBe(false);
    expect(shouldRetry(new ConflictError('x'), 1, policy)).toBe(false);
    expect(shouldRetry(new PermanentError('x', 403), 1, policy)).toBe(false);
    expect(shouldRetry(new Error('x'), 1, policy)).toBe(false);
  });

  it('leaves a Retry-After beyond its cap to the queue', () => {
    const cap = policy.maxRetryAfterMs / 1000;
    expect(shouldRetry(new TransientError('x', cap), 1, policy)).toBe(true);
    expect(shouldRetry(new TransientError('x', cap + 1), 1, policy)).toBe(false);
  });

  it('backs off exponentially with jitter between half and all of a capped ceiling', () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const delay = retryDelayMs(new TransientError('x'), attempt, policy);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('waits at least what the server asked (Retry-After), and never beyond the cap', () => {
    expect(retryDelayMs(new TransientError('x', 2), 1, policy)).toBe(2000);
    expect(retryDelayMs(new TransientError('x', 60), 1, policy)).toBe(policy.maxRetryAfterMs);
  });
});

describe('gateway retries against the simulator', () => {
  let sim: Simulator;
  let kube: KubeGateway;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 9 });
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    kube = new KubeGateway(kc, { qps: 1000, burst: 1000 }, { baseDelayMs: 1, maxDelayMs: 4 });
    sim.addPod({ namespace: 'r', name: 'p', labels: { app: 'r' } });
  });
  afterAll(async () => {
    await kube.close();
    await sim.close();
  });
  beforeEach(() => {
    sim.setFaults(null);
    sim.resetRequests();
  });
  const podReads = () =>
    sim.requests().filter((r) => r.resource === 'pods' && r.method === 'GET').length;

  it('tries a 500 four times in all, then throws TransientError', async () => {
    sim.setFaults({ errorRate: 1, status: 500, resources: ['pods'] });
    await expect(kube.getPod('r', 'p')).rejects.toBeInstanceOf(TransientError);
    expect(podReads()).toBe(policy.attempts);
  });

  it('does not retry a 429 whose Retry-After is beyond the cap', async () => {
    sim.setFaults({ errorRate: 1, status: 429, retryAfterSeconds: 30, resources: ['pods'] });
    await expect(kube.getPod('r', 'p')).rejects.toBeInstanceOf(TransientError);
    expect(podReads()).toBe(1);
  });

  it('does not retry a 404: absent is an answer', async () => {
    expect(await kube.getPod('r', 'missing')).toBeUndefined();
    expect(podReads()).toBe(1);
  });

  it('never sends a DELETE twice when the first landed but its answer was lost', async () => {
    const [pod] = sim.listPods('r');
    sim.setFaults({ errorRate: 1, status: 500, afterEffect: true, methods: ['DELETE'] });
    expect(await kube.deletePod('r', 'p', pod!.metadata.uid)).toBe('deleted');
    expect(sim.requests().filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect(sim.deletionsByUid().get(pod!.metadata.uid)).toBe(1);
  });
});
