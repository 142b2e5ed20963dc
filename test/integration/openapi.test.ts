import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';

const ROUTES: Array<[string, string]> = [
  ['post', '/v1/events'],
  ['get', '/v1/directives/{namespace}/{name}'],
  ['post', '/v1/directives/{namespace}/{name}/retry'],
  ['post', '/v1/directives/{namespace}/{name}/pause'],
  ['post', '/v1/directives/{namespace}/{name}/resume'],
  ['post', '/v1/directives/{namespace}/{name}/abort'],
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['get', '/metrics'],
  ['get', '/openapi.json'],
];

describe('GET /openapi.json', () => {
  let h: Harness;
  let doc: any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  /** Checks a real answer against the document's schema for that route and status. */
  async function conforms(method: string, route: string, url: string, init: RequestInit = {}) {
    const response = await fetch(`${h.serve.url}${url}`, { method: method.toUpperCase(), ...init });
    const body = await response.json();
    const described = doc.paths[route]?.[method]?.responses?.[String(response.status)];
    expect(described, `${method} ${url} → ${response.status} is described`).toBeDefined();
    const schema = described.content['application/json'].schema;
    const valid = ajv.validate(schema, body);
    expect(valid, `${method} ${url} → ${response.status}: ${ajv.errorsText()}`).toBe(true);
    return response.status;
  }

  beforeAll(async () => {
    h = await startHarness('openapi', { worker: false });
    h.sim.addWorkload({
      namespace: 'oans',
      name: 'app',
      kind: 'ReplicaSet',
      labels: { app: 'a' },
      replicas: 1,
    });
    h.sim.applyDirective(directive('oans', 'certs', [{ namespace: 'oans', labels: { app: 'a' } }]));
    const response = await fetch(`${h.serve.url}/openapi.json`);
    expect(response.status).toBe(200);
    doc = await response.json();
  });
  afterAll(async () => h.close());

  it('is OpenAPI 3.1 and describes every route, and nothing of the dashboard', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const [method, path] of ROUTES) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
    const params = doc.paths['/v1/directives/{namespace}/{name}'].get.parameters;
    expect(params.map((p: any) => [p.name, p.in, p.schema.pattern !== undefined])).toEqual([
      ['namespace', 'path', true],
      ['name', 'path', true],
    ]);
  });

  it('describes real answers: accepted, duplicate, plan, errors, views and controls', async () => {
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const ref = JSON.stringify({ directive: { namespace: 'oans', name: 'certs' } });
    const post = { headers: auth, body: ref };
    const seen = [
      await conforms('post', '/v1/events', '/v1/events?dryRun=true', post),
      await conforms('post', '/v1/events', '/v1/events', post),
      await conforms('post', '/v1/events', '/v1/events', post),
      await conforms('post', '/v1/events', '/v1/events', { headers: auth, body: '{' }),
      await conforms('post', '/v1/events', '/v1/events', { body: ref }),
      await conforms('post', '/v1/events', '/v1/events', {
        headers: auth,
        body: JSON.stringify({ directive: { namespace: 'oans', name: 'missing' } }),
      }),
      await conforms('get', '/v1/directives/{namespace}/{name}', '/v1/directives/oans/certs', {
        headers: auth,
      }),
      await conforms('get', '/v1/directives/{namespace}/{name}', '/v1/directives/oans/BAD', {
        headers: auth,
      }),
      await conforms(
        'post',
        '/v1/directives/{namespace}/{name}/retry',
        '/v1/directives/oans/certs/retry',
        { headers: { authorization: auth.authorization } },
      ),
      await conforms(
        'post',
        '/v1/directives/{namespace}/{name}/pause',
        '/v1/directives/oans/certs/pause',
        { headers: { authorization: auth.authorization } },
      ),
      await conforms(
        'post',
        '/v1/directives/{namespace}/{name}/resume',
        '/v1/directives/oans/certs/resume',
        { headers: { authorization: auth.authorization } },
      ),
      await conforms(
        'post',
        '/v1/directives/{namespace}/{name}/abort',
        '/v1/directives/oans/certs/abort',
        { headers: { authorization: auth.authorization } },
      ),
      await conforms('get', '/healthz', '/healthz'),
    ];
    expect(seen).toEqual([200, 202, 202, 400, 401, 404, 200, 400, 409, 200, 200, 202, 200]);
  });
});
