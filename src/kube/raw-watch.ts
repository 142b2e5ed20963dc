import { STATUS_CODES } from 'node:http';
import { HttpMethod, RequestContext, type KubeConfig } from '@kubernetes/client-node';

type Params = Record<string, string | number | boolean | undefined>;
type Callback = (phase: string, object: unknown, event: unknown) => void;

/** What client-node's `Watch` reports when a stream said nothing for its timeout. */
function timeoutError(): Error {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

/**
 * A watch stream as client-node's `Watch.watch` runs it (same URL, parameters, events, inactivity
 * timeout and `done` semantics: once, with null at the stream's end, a TimeoutError after
 * `timeoutMs` without data, the HTTP status as `statusCode` when the server refuses), read
 * through undici's plain request API on client-node's authenticated dispatcher: no fetch, web
 * streams or readline per chunk, which cost more CPU than parsing the events themselves on a
 * worker that follows hundreds of namespaces. Resolves `undefined` without sending when
 * client-node lends no dispatcher (a cluster without TLS settings): the caller then uses
 * client-node's own `Watch`.
 */
export async function rawWatch(
  kubeConfig: KubeConfig,
  stream: { path: string; queryParams: Params; timeoutMs: number },
  callback: Callback,
  done: (error: unknown) => void,
): Promise<AbortController | undefined> {
  const { path, queryParams, timeoutMs } = stream;
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error('No currently active cluster');
  const url = new URL(cluster.server + path);
  url.searchParams.set('watch', 'true');
  for (const [key, value] of Object.entries(queryParams)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const context = new RequestContext(url.toString(), HttpMethod.GET);
  await kubeConfig.applySecurityAuthentication(context);
  const dispatcher = context.getDispatcher();
  if (dispatcher === undefined) return undefined;

  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  let finished = false;
  const finish = (error: unknown): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    controller.abort();
    done(error !== null && error !== undefined && timedOut ? timeoutError() : error);
  };
  // Re-armed on every chunk: refresh() moves the deadline without a new timer.
  const arm = (): void => {
    if (timer !== undefined) {
      timer.refresh();
      return;
    }
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(timeoutError());
    }, timeoutMs);
    timer.unref();
  };

  try {
    arm();
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: context.getHeaders(),
      signal: controller.signal,
    });
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      const text = STATUS_CODES[response.statusCode] ?? 'Internal Server Error';
      throw Object.assign(new Error(text), { statusCode: response.statusCode });
    }
    arm();
    readLines(response.body, arm, callback);
    response.body.on('error', finish);
    response.body.on('end', () => finish(null));
    response.body.on('close', () => finish(null));
  } catch (error) {
    finish(error);
  }
  return controller;
}

/** Newline-delimited JSON events, each handed to `callback`; a line that does not parse is skipped. */
function readLines(body: NodeJS.ReadableStream, heard: () => void, callback: Callback): void {
  let pending = '';
  body.setEncoding('utf8');
  body.on('data', (chunk: string) => {
    heard();
    const text = pending + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      start = end + 1;
      if (line.length === 0) continue;
      try {
        const event = JSON.parse(line) as { type: string; object: unknown };
        callback(event.type, event.object, event);
      } catch {
        // As client-node's Watch: a line that is not an event is skipped.
      }
    }
    pending = text.slice(start);
  });
}
