// The HTTP front: request log, fault injection, body decoding, JSON and watch answers.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ApiError, internalError } from './api-errors.js';
import type { ApiDispatcher } from './api.js';
import { isWatch } from './api.js';
import type { FaultInjector } from './faults.js';
import { kubeconfigUserOf } from './kubeconfig.js';
import { decodeBody, mediaType, readBody, writeReply } from './http-io.js';
import { presented } from './presentation.js';
import type { RequestLog } from './request-log.js';
import type { Reply } from './requests.js';
import type { ResourceRegistry } from './resources.js';
import { parsePath } from './routing.js';
import type { ParsedPath } from './routing.js';
import type { Timers } from './timers.js';
import type { RequestLogEntry } from './types.js';
import type { WatchHub } from './watch.js';

export interface ServerParts {
  dispatcher: ApiDispatcher;
  registry: ResourceRegistry;
  watches: WatchHub;
  faults: FaultInjector;
  log: RequestLog;
  timers: Timers;
}

export function createApiServer(parts: ServerParts): Server {
  return createServer((req, res) => {
    handle(parts, req, res).catch((err: unknown) => {
      if (!res.headersSent) writeError(res, internalError(String(err)));
      else res.destroy();
    });
  });
}

async function handle(
  parts: ServerParts,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://simulator.invalid');
  const parsed = parsePath(url.pathname);
  const entry = logEntry(method, url, parsed, kubeconfigUserOf(req.headers.authorization));
  const reply = await answer(parts, req, { method, url, parsed, entry });
  if ('watch' in reply) {
    try {
      parts.watches.open(res, reply.watch);
      return record(parts, entry, 200);
    } catch (err) {
      return record(parts, entry, writeError(res, asApiError(err)));
    }
  }
  writeReply(res, reply.status, reply.body, reply.headers);
  record(parts, entry, reply.status);
}

interface Call {
  method: string;
  url: URL;
  parsed: ParsedPath;
  entry: RequestLogEntry;
}

/** Runs the request through fault injection and its handler; errors become Status replies. */
async function answer(parts: ServerParts, req: IncomingMessage, call: Call): Promise<Reply> {
  try {
    const raw = await readBody(req);
    const { entry } = call;
    const fault = parts.faults.decide({
      method: call.method,
      resource: entry.resource,
      subresource: entry.subresource,
    });
    if (fault.latencyMs > 0) await parts.timers.sleep(fault.latencyMs);
    if (fault.failure && !fault.afterEffect) return errorReply(fault.failure);
    const contentType = mediaType(req.headers['content-type']);
    const body = call.parsed.kind === 'resource' ? decodeBody(raw, contentType) : undefined;
    const reply = parts.dispatcher.dispatch({
      method: call.method,
      parsed: call.parsed,
      query: call.url.searchParams,
      contentType,
      body,
      userAgent: req.headers['user-agent'],
    });
    if (fault.failure) return errorReply(fault.failure);
    const { method, parsed, url } = call;
    const read = { method, parsed, query: url.searchParams, accept: req.headers.accept };
    return presented(parts.registry, read, reply);
  } catch (err) {
    return errorReply(asApiError(err));
  }
}

function asApiError(err: unknown): ApiError {
  return err instanceof ApiError
    ? err
    : internalError(err instanceof Error ? err.message : String(err));
}

function errorReply(error: ApiError): Reply {
  const retryAfter = error.details?.retryAfterSeconds;
  const headers: Record<string, string> =
    retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {};
  return { status: error.code, body: error.toStatus(), headers };
}

function writeError(res: ServerResponse, error: ApiError): number {
  const reply = errorReply(error) as {
    status: number;
    body: unknown;
    headers: Record<string, string>;
  };
  writeReply(res, reply.status, reply.body, reply.headers);
  return reply.status;
}

function logEntry(
  method: string,
  url: URL,
  parsed: ParsedPath,
  user: string | undefined,
): RequestLogEntry {
  const base = {
    at: Date.now(),
    method,
    path: url.pathname,
    query: url.search.replace(/^\?/, ''),
    status: 0,
    ...definedOnly({ user }),
  };
  if (parsed.kind === 'namespace') {
    return { ...base, resource: 'namespaces', ...definedOnly({ name: parsed.name }), watch: false };
  }
  if (parsed.kind !== 'resource') return { ...base, resource: '', watch: false };
  const { plural, subresource, namespace, name } = parsed.resource;
  const watch = method === 'GET' && name === undefined && isWatch(url.searchParams);
  return { ...base, resource: plural, ...definedOnly({ subresource, namespace, name }), watch };
}

/** Leaves out undefined fields so log entries compare cleanly with toEqual/toMatchObject. */
function definedOnly<T extends Record<string, string | undefined>>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

function record(parts: ServerParts, entry: RequestLogEntry, status: number): void {
  parts.log.record({ ...entry, status });
}
