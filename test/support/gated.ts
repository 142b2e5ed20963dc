import { startFakePrometheus, type FakePrometheus } from './fake-prometheus.js';
import { startHarness, type Harness, type HarnessOptions } from './harness.js';
import { onePodDirective } from './workloads.js';

/**
 * A harness that checks its gates every second against a fake Prometheus firing `alert`, with one
 * pod in `namespace` (ReplicaSet app) and the directive `certs` that bounces it behind the gate
 * alerts `Mesh.*`: a run of it waits, Ready saying Gated, until the alert is cleared.
 */
export async function startGatedOnePod(
  name: string,
  namespace: string,
  alert: string,
  options: HarnessOptions = {},
): Promise<{ h: Harness; prom: FakePrometheus }> {
  const prom = await startFakePrometheus();
  prom.firing.add(alert);
  let h: Harness;
  try {
    h = await startHarness(name, {
      ...options,
      env: { PROMETHEUS_URL: prom.url, GATE_INTERVAL_SECONDS: '1', ...options.env },
    });
  } catch (error) {
    await prom.close();
    throw error;
  }
  onePodDirective(h, namespace, 'certs', { app: 'app', spec: { gates: [{ alerts: 'Mesh.*' }] } });
  return { h, prom };
}
