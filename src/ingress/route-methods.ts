import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from './http-errors.js';

/** One route path: its pattern as a regular expression, and the methods it takes. */
interface RoutePath {
  pattern: RegExp;
  methods: Set<string>;
}

/** A route URL (`/v1/directives/:namespace/:name/retry`, `/admin/*`) as an anchored pattern. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * The methods each route path takes, as routes are added to `app` (and to the plugins registered
 * in it afterwards), so that a method a path does not take is answered 405 with `Allow`
 * (RFC 9110 §15.5.6) rather than the 404 of a path nothing serves. Call before any route is added.
 * Answers the methods for a request the router found no route for; none when no route has its path.
 */
export function routeMethods(app: FastifyInstance): (request: FastifyRequest) => string[] {
  const paths = new Map<string, RoutePath>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const known = paths.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set() };
    for (const method of methods) known.methods.add(method);
    paths.set(route.url, known);
  });
  return (request) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const methods = new Set<string>();
    for (const known of paths.values()) {
      if (known.pattern.test(path)) for (const method of known.methods) methods.add(method);
    }
    return [...methods].sort();
  };
}

/** The 405 for a method a path does not take, naming the ones it does. */
export function methodNotAllowed(request: FastifyRequest, allowed: string[]): HttpProblem {
  const path = request.url.split('?', 1)[0] ?? '';
  const verb = allowed.length === 1 ? 'is' : 'are';
  return new HttpProblem(
    405,
    'method_not_allowed',
    `Only ${allowed.join(', ')} ${verb} allowed on ${path}.`,
    { allow: allowed.join(', ') },
  );
}
