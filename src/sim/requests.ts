// What a handler gets and gives back.
import type { ResourceType } from './resources.js';
import type { ResourcePath } from './routing.js';
import type { WatchOptions } from './watch.js';

export interface ApiRequest {
  method: string;
  path: ResourcePath;
  type: ResourceType;
  /** The path's namespace; '' for cluster-scoped requests and cluster-wide lists. */
  namespace: string;
  query: URLSearchParams;
  contentType: string;
  body: unknown;
  /** The User-Agent header: a write without `fieldManager` is its product name's. */
  userAgent?: string | undefined;
}

export type Reply =
  { status: number; body: unknown; headers?: Record<string, string> } | { watch: WatchOptions };

export type Handler = (req: ApiRequest) => Reply;

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

export function isDryRun(query: URLSearchParams): boolean {
  return query.getAll('dryRun').includes('All');
}
