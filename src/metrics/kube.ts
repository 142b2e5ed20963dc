import { kubeRequestDuration, kubeRequests } from './registry.js';

/** The Kubernetes verb of a request, the `verb` label: a small, stable set. */
export type KubeVerb = 'get' | 'list' | 'create' | 'patch' | 'delete';

/** The HTTP status of a failed request (client-node's ApiException has a numeric `code`). */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? String(code) : 'network';
}

/** Runs one request to the API server, counting it by verb and answer and timing it. */
export async function observeKubeRequest<T>(verb: KubeVerb, request: () => Promise<T>): Promise<T> {
  const stop = kubeRequestDuration.startTimer({ verb });
  try {
    const result = await request();
    kubeRequests.inc({ verb, code: '2xx' });
    return result;
  } catch (error) {
    kubeRequests.inc({ verb, code: codeOf(error) });
    throw error;
  } finally {
    stop();
  }
}
