import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { HttpProblem } from './http-errors.js';

type Done = (error?: Error) => void;
type Hook = (request: FastifyRequest, reply: unknown, done: Done) => void;

/** The query parameters a route's querystring schema names (none without one). */
function declaredOf(route: RouteOptions): Set<string> {
  const schema = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(schema?.properties ?? {}));
}

/** The names of the raw query string, as sent: before any schema could coerce or drop one. */
function namesOf(url: string | undefined): string[] {
  const start = url?.indexOf('?') ?? -1;
  if (url === undefined || start < 0) return [];
  return [...new URLSearchParams(url.slice(start + 1)).keys()];
}

/** Quoted for a message: a stranger's name, bounded. */
const quoted = (name: string): string => JSON.stringify(name.slice(0, 64));

function refusal(request: FastifyRequest, unknown: string, declared: Set<string>): HttpProblem {
  const takes = declared.size === 0 ? 'takes none' : `takes ${[...declared].join(', ')}`;
  return new HttpProblem(
    400,
    'unknown_query_parameter',
    `Unknown query parameter ${quoted(unknown)}: ${request.method} ${request.routeOptions.url ?? ''} ${takes}.`,
  );
}

/**
 * A query parameter a route does not declare is refused (400), not ignored: `?dryrun=true` must
 * not run for real. Checked last before the handler, after the route's own credentials checks, so
 * that a stranger still gets the 401 first. On every route of `app` registered after this, except
 * those `exempt` says (a third-party UI that reads parameters of its own).
 */
export function refuseUnknownQuery(
  app: FastifyInstance,
  exempt: (url: string) => boolean = () => false,
): void {
  app.addHook('onRoute', (route) => {
    if (exempt(route.url)) return;
    const declared = declaredOf(route);
    const check: Hook = (request, _reply, done) => {
      const unknown = namesOf(request.raw.url).find((name) => !declared.has(name));
      done(unknown === undefined ? undefined : refusal(request, unknown, declared));
    };
    const given = route.preHandler;
    const hooks = given === undefined ? [] : Array.isArray(given) ? given : [given];
    route.preHandler = [...hooks, check] as RouteOptions['preHandler'];
  });
}
