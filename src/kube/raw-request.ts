import { ApiException, HttpMethod, RequestContext, type KubeConfig } from '@kubernetes/client-node';

/** One request as sent: the path from the server's root (segments encoded, query included). */
export interface RawCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** A JSON body, already serialized. */
  body?: string;
  /** The body's media type (default application/json; a merge patch says so). */
  contentType?: string;
}

const METHODS: Record<RawCall['method'], HttpMethod> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

interface Answer {
  status: number;
  headers: () => Record<string, string>;
  text: string;
}

/**
 * Sends one request to the API server and resolves with the answer's text on a 2xx.
 *
 * Why not client-node's generated calls on the worker's hot path (a pod's eviction or deletion,
 * the selector's LIST, the status patch and its Event): client-node turns every body into model
 * objects and back, over undici's fetch, which cost several times the request itself in CPU. This
 * sends the JSON as it is through undici's plain request API. Authentication, TLS and the
 * kept-alive dispatcher stay client-node's own (`applySecurityAuthentication`, see `client.ts`);
 * a cluster for which client-node lends no dispatcher (no TLS settings at all: an https server
 * trusted through the system's CAs) is reached with Node's own fetch, as client-node does then.
 * A non-2xx answer is thrown as client-node's `ApiException`, so every caller maps failures as
 * for any other call (`api-errors.ts`); a network failure is thrown as it comes.
 */
export async function sendRaw(kubeConfig: KubeConfig, call: RawCall): Promise<string> {
  const answer = await dispatch(kubeConfig, call);
  if (answer.status >= 200 && answer.status < 300) return answer.text;
  throw new ApiException(
    answer.status,
    `HTTP-Code: ${answer.status}\nMessage: Unknown API Status Code!`,
    answer.text,
    answer.headers(),
  );
}

async function dispatch(kubeConfig: KubeConfig, call: RawCall): Promise<Answer> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('no current cluster in the kubeconfig');
  const url = `${server.replace(/\/+$/, '')}${call.path}`;
  const context = new RequestContext(url, METHODS[call.method]);
  context.setHeaderParam('Accept', 'application/json');
  if (call.body !== undefined) {
    context.setHeaderParam('Content-Type', call.contentType ?? 'application/json');
  }
  await kubeConfig.applySecurityAuthentication(context);
  const headers = context.getHeaders();
  const dispatcher = context.getDispatcher();
  if (dispatcher === undefined) {
    const response = await fetch(url, {
      method: call.method,
      headers,
      ...(call.body === undefined ? {} : { body: call.body }),
    });
    return {
      status: response.status,
      headers: () => Object.fromEntries(response.headers),
      text: await response.text(),
    };
  }
  const target = new URL(url);
  const response = await dispatcher.request({
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: call.method,
    headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  const text = await response.body.text();
  const flatHeaders = (): Record<string, string> => {
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return flat;
  };
  return { status: response.statusCode, headers: flatHeaders, text };
}

/** `/api/v1/namespaces/<namespace>/<rest>` with each segment encoded. */
export function namespacedPath(namespace: string, ...segments: string[]): string {
  return ['/api/v1/namespaces', namespace, ...segments].map(encodePart).join('/');
}

function encodePart(segment: string, index: number): string {
  return index === 0 ? segment : encodeURIComponent(segment);
}
