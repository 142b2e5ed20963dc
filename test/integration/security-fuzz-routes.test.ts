import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpsApp } from '../../src/ingress/ops-app.js';
import { startHarness, TOKEN, type Harness } from '../support/harness.js';
import { onePodDirective } from '../support/workloads.js';
import {
  projectedToken,
  registerServiceAccount,
  tokenReviewEnv,
} from '../support/service-accounts.js';

/**
 * Property, with every auth mode on at once (static tokens, HMAC, Standard Webhooks, TokenReview):
 * whatever method, path, query string, credentials and body reach the api (the events endpoint,
 * the directive routes, the probes, the metrics, the OpenAPI document, the dashboard, paths no
 * route serves) or the worker's port, the answer is a 2xx only for a valid credential or an open
 * route and never with a query parameter the route does not declare, otherwise a 4xx with the
 * {error, message} body (a method the path's routes do not take: 405 naming those it does in
 * `Allow`), never a 5xx; nothing changes for a request that was not admitted or that
 * carried an undeclared parameter; and no route but POST /v1/events reads a body (a malformed one
 * is never answered 400, 413 or 415).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const HMAC_SECRET = 'fuzz-hmac-secret-42';
const STANDARD_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const SA_TOKEN = projectedToken('fuzz:sender');
const OTHER_SA_TOKEN = projectedToken('fuzz:other');
const sender = new Webhook(STANDARD_SECRET);

const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('fuzz', 'target', 'missing') },
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    'a%2Fb',
    'Target',
    '-x',
    'x-',
    'a'.repeat(254),
    '%00',
    '%zz',
  ),
  fc.stringMatching(/^[a-zA-Z0-9._~%-]{1,20}$/),
);
const action = fc.constantFrom('', '/retry', '/pause', '/resume', '/abort', '/nope', '/');
/** Routes that answer without credentials (GET and HEAD only). */
const OPEN = ['/healthz', '/readyz', '/metrics', '/openapi.json'];
/** Paths no route serves, whatever the method. */
const UNKNOWN = [
  '/',
  '/nonexistent',
  '/v1/events/x',
  '/v1/directives',
  '/admin/queues',
  '/v2/events',
];
const route = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(segment, segment, action)
      .map(([ns, name, act]) => `/v1/directives/${ns}/${name}${act}`),
  },
  fc.constant('/v1/events'),
  fc.constantFrom(...OPEN, ...UNKNOWN),
);
const method = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
);
/** What `Allow` says on a 405: the methods of the route of that path. */
const ALLOW_READ = 'GET, HEAD';
function allowedOn(url: string): string | undefined {
  if (
    url === '/v1/events' ||
    /^\/v1\/directives\/[^/]+\/[^/]+\/(retry|pause|resume|abort)$/.test(url)
  ) {
    return 'POST';
  }
  if (OPEN.includes(url) || /^\/v1\/directives\/[^/]+\/[^/]+$/.test(url)) return ALLOW_READ;
  return undefined;
}

const queryName = fc.oneof(
  fc.constantFrom('dryRun', 'dryrun', 'DRYRUN', 'x', '__proto__', 'constructor', 'name[]', ''),
  fc.stringMatching(/^[a-zA-Z0-9_.%[\]-]{1,12}$/),
);
const queryValue = fc.oneof(
  fc.constantFrom('true', 'false', '1', '', '%zz', '%00', 'maybe'),
  fc.stringMatching(/^[a-zA-Z0-9%._-]{0,12}$/),
);
/** A query string: none (most often), a few random pairs, or one of the tricky ones. */
const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  fc
    .array(fc.tuple(queryName, queryValue, fc.boolean()), { minLength: 1, maxLength: 3 })
    .map(
      (pairs) => `?${pairs.map(([name, value, eq]) => (eq ? `${name}=${value}` : name)).join('&')}`,
    ),
  fc.constantFrom('?', '?&', '?=', '?dryRun=true', '?dryRun=true&dryRun=false', '?dryRun=maybe'),
);

/** The first name of `search` that the route does not declare (only POST /v1/events has one). */
function undeclared(verb: string, url: string, search: string): string | undefined {
  const declared = verb === 'POST' && url === '/v1/events' ? ['dryRun'] : [];
  return [...new URLSearchParams(search.slice(1)).keys()].find((name) => !declared.includes(name));
}
const payload = fc.oneof(
  fc.constant(''),
  fc.constant(JSON.stringify({ directive: { namespace: 'fuzz', name: 'target' } })),
  fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
  fc.string({ maxLength: 100 }),
  // Malformed JSON: a 400 that says so is proof the body was parsed.
  fc.constantFrom('{"directive": [[[[', '[', '{', 'nul', '{"a":1}}'),
);

/** What only a route that read the body can answer: its parse, size, type or arrival. */
function readTheBody(status: number, message: string): boolean {
  return [408, 413, 415].includes(status) || (status === 400 && /body|JSON/.test(message));
}
type Credential =
  | 'token'
  | 'sa'
  | 'hmac'
  | 'standard'
  | 'other-sa'
  | 'junk-token'
  | 'junk-hmac'
  | 'stale-standard'
  | 'none';
const credential = fc.constantFrom<Credential>(
  'token',
  'sa',
  'hmac',
  'standard',
  'other-sa',
  'junk-token',
  'junk-hmac',
  'stale-standard',
  'none',
);
const VALID = new Set<Credential>(['token', 'sa', 'hmac', 'standard']);
const SIGNED = new Set<Credential>(['hmac', 'standard']);

function headersFor(
  kind: Credential,
  body: string,
  junk: number,
  id: number,
): Record<string, string> {
  const standard = (at: Date) => {
    const msg = `msg_fuzz_${id}`;
    return {
      'webhook-id': msg,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': sender.sign(msg, at, body),
    };
  };
  switch (kind) {
    case 'token':
      return { authorization: `Bearer ${TOKEN}` };
    case 'sa':
      return { authorization: `Bearer ${SA_TOKEN}` };
    case 'other-sa':
      return { authorization: `Bearer ${OTHER_SA_TOKEN}` };
    case 'junk-token':
      return { authorization: `Bearer junk-${junk}` };
    case 'hmac':
      return {
        'x-signature-256': `sha256=${createHmac('sha256', HMAC_SECRET).update(body).digest('hex')}`,
      };
    case 'junk-hmac':
      return {
        'x-signature-256': `sha256=${createHmac('sha256', 'nope').update(body).digest('hex')}`,
      };
    case 'standard':
      return standard(new Date());
    case 'stale-standard':
      return standard(new Date(Date.now() - 10 * 60_000));
    default:
      return {};
  }
}

describe('fuzzing the directive routes and the events endpoint in every auth mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('fuzz-routes', {
      worker: false,
      env: {
        WEBHOOK_HMAC_SECRET: HMAC_SECRET,
        WEBHOOK_STANDARD_SECRET: STANDARD_SECRET,
        ...tokenReviewEnv('fuzz:sender'),
      },
    });
    registerServiceAccount(h, SA_TOKEN, 'fuzz:sender');
    registerServiceAccount(h, OTHER_SA_TOKEN, 'fuzz:other');
    onePodDirective(h, 'fuzz', 'target', { app: 'target' });
  });
  afterAll(async () => h.close());

  it(
    `answers ${RUNS} generated requests: 2xx only when admitted, else 4xx, never 5xx`,
    { timeout: 180_000 },
    async () => {
      const statuses = new Map<number, number>();
      let refusedJobs = 0;
      let undeclaredJobs = 0;
      let undeclaredRefused = 0;
      await fc.assert(
        fc.asyncProperty(
          method,
          route,
          payload,
          credential,
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 50 }),
          query,
          async (verb, url, body, kind, junk, id, search) => {
            const withBody = !['GET', 'HEAD'].includes(verb) && body !== '';
            const signedBody = withBody ? body : '';
            const headers: Record<string, string> = {
              ...headersFor(kind, signedBody, junk, id),
              ...(withBody ? { 'content-type': 'application/json' } : {}),
            };
            const path = `${url}${search}`;
            const unknown = undeclared(verb, url, search);
            const before = await h.serve.queue.count();
            const answer = await h.serve.app.inject({
              method: verb,
              url: path,
              headers,
              ...(withBody ? { payload: body } : {}),
            });
            statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
            const what = `${verb} ${path} ${kind}: ${answer.body}`;
            expect(answer.statusCode, what).toBeLessThan(500);
            if (UNKNOWN.includes(url)) expect(answer.statusCode, what).toBe(404);
            if (url === '/v1/events' && verb !== 'POST') {
              expect(answer.statusCode, what).toBe(405);
            }
            const readsOpen = OPEN.includes(url) && ['GET', 'HEAD'].includes(verb);
            if (OPEN.includes(url)) {
              expect(answer.statusCode, what).toBe(
                readsOpen ? (unknown === undefined ? 200 : 400) : 405,
              );
            }
            if (answer.statusCode === 405) {
              // The path as the server sees it, its dot segments resolved.
              const served = new URL(url, 'http://fuzz').pathname;
              expect(answer.headers.allow, what).toBe(allowedOn(served));
              expect(`${answer.headers.allow}`.split(', '), what).not.toContain(verb);
            }
            if (unknown !== undefined) {
              expect(answer.statusCode, `undeclared ${unknown}: ${what}`).toBeGreaterThanOrEqual(
                400,
              );
              if (answer.statusCode === 400 && verb !== 'HEAD') {
                undeclaredRefused += answer.json().error === 'unknown_query_parameter' ? 1 : 0;
              }
            }
            const takesBody = url === '/v1/events' && verb === 'POST';
            if (!takesBody && answer.statusCode >= 400) {
              expect(readTheBody(answer.statusCode, answer.body), `read: ${what}`).toBe(false);
            }
            if (answer.statusCode >= 400 && verb !== 'HEAD') {
              expect(JSON.parse(answer.body), what).toEqual({
                error: expect.any(String),
                message: expect.any(String),
              });
            }
            const changed = (await h.serve.queue.count()) !== before;
            if (unknown !== undefined && changed) undeclaredJobs += 1;
            if (OPEN.includes(url)) return;
            if (answer.statusCode < 300) {
              expect(VALID.has(kind), `${verb} ${path} ${kind} admitted`).toBe(true);
              // A signature admits only the events endpoint, and only a body it signed (an HMAC
              // of no body, never); the directive routes take tokens alone.
              if (SIGNED.has(kind)) expect(`${verb} ${url}`).toBe('POST /v1/events');
              if (kind === 'hmac') expect(withBody).toBe(true);
              return;
            }
            if (!VALID.has(kind) && changed) refusedJobs += 1;
          },
        ),
        { numRuns: RUNS },
      );
      console.log(
        `fuzz routes: ${RUNS} requests, answers ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(refusedJobs).toBe(0);
      expect(undeclaredJobs).toBe(0);
      expect(undeclaredRefused).toBeGreaterThan(0);
      expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
      expect(statuses.get(401) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
      expect(h.sim.deletedPods()).toEqual([]);
      // Only the few junk tokens, the two service accounts: the verdicts were cached.
      expect(
        h.sim.requests().filter((r) => r.resource === 'tokenreviews').length,
      ).toBeLessThanOrEqual(7);
    },
  );

  it(
    `answers ${RUNS} generated requests on the worker's port: 200 for its two routes, else 4xx, bodies unread`,
    { timeout: 120_000 },
    async () => {
      const ops = await buildOpsApp(h.serve.app.log);
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'),
            fc.oneof(fc.constantFrom('/healthz', '/metrics', ...UNKNOWN), route),
            payload,
            credential,
            query,
            async (verb, url, body, kind, search) => {
              const withBody = !['GET', 'HEAD'].includes(verb) && body !== '';
              const answer = await ops.inject({
                method: verb,
                url: `${url}${search}`,
                headers: {
                  ...headersFor(kind, body, 0, 0),
                  ...(withBody ? { 'content-type': 'application/json' } : {}),
                },
                ...(withBody ? { payload: body } : {}),
              });
              const served =
                ['GET', 'HEAD'].includes(verb) && ['/healthz', '/metrics'].includes(url);
              const what = `${verb} ${url}${search}: ${answer.body}`;
              const unknown = undeclared(verb, url, search);
              if (served && unknown !== undefined) {
                expect(answer.statusCode, what).toBe(400);
                if (verb === 'GET') expect(answer.json().error).toBe('unknown_query_parameter');
                return;
              }
              if (served) {
                expect(answer.statusCode, what).toBe(200);
                return;
              }
              if (['/healthz', '/metrics'].includes(url)) {
                expect(answer.statusCode, what).toBe(405);
                expect(answer.headers.allow, what).toBe(ALLOW_READ);
                return;
              }
              // A path the router cannot decode (`%zz`) is a 400, decided on the URL alone.
              const undecodable =
                answer.statusCode === 400 &&
                (verb === 'HEAD' || /not a valid url/.test(answer.body));
              expect(undecodable || answer.statusCode === 404, what).toBe(true);
              if (verb !== 'HEAD') {
                expect(JSON.parse(answer.body)).toEqual({
                  error: undecodable ? 'bad_request' : 'not_found',
                  message: expect.not.stringMatching(/body|JSON/),
                });
              }
            },
          ),
          { numRuns: RUNS },
        );
      } finally {
        await ops.close();
      }
    },
  );
});
