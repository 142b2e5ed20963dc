import { kubeRequestDuration, kubeRequests } from './registry.js';

/**
 * The gateway describes each call in words ("read pod ns/name", "delete pod …"); the first word
 * tells the Kubernetes verb, which keeps the label set small and stable.
 */
const VERBS: Record<string, string> = {
  read: 'get',
  list: 'list',
  apply: 'patch',
  write: 'patch',
  delete: 'delete',
  evict: 'create',
  record: 'create',
  review: 'create',
};

function verbOf(what: string): string {
  return VERBS[what.split(' ', 1)[0] ?? ''] ?? 'other';
}

/** The HTTP status of a failed request (client-node's ApiException has a numeric `code`). */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? String(code) : 'network';
}

/** Runs one request to the API server, counting it by verb and answer and timing it. */
export async function observeKubeRequest<T>(what: string, request: () => Promise<T>): Promise<T> {
  const verb = verbOf(what);
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
