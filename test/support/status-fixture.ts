import { KubeConfig } from '@kubernetes/client-node';
import { KubeGateway } from '../../src/kube/gateway.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { StatusWriter } from '../../src/status/writer.js';

export interface StatusFixture {
  sim: Simulator;
  kube: KubeGateway;
  writer: StatusWriter;
  close(): Promise<void>;
}

/** A simulator, the real gateway over client-node to it, and a status writer on that gateway. */
export async function startStatusFixture(seed: number): Promise<StatusFixture> {
  const sim = await startSimulator({ seed });
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
  const kube = new KubeGateway(kc, { qps: 1000, burst: 1000 });
  const writer = new StatusWriter(kube, createLogger('silent'));
  return {
    sim,
    kube,
    writer,
    async close() {
      await kube.close();
      await sim.close();
    },
  };
}
