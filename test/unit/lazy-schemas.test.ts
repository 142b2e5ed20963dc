// Route schemas compiled on first use answer exactly as fastify's eager compilers do: the same
// 400s, the same coercions, the same serialized bodies.
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { lazySchemaCompilers } from '../../src/ingress/lazy-schemas.js';

const Item = Type.Object({ name: Type.String({ minLength: 2 }), count: Type.Integer() });

function appWith(lazy: boolean): FastifyInstance {
  const app = Fastify(lazy ? { schemaController: { compilersFactory: lazySchemaCompilers } } : {});
  app.post(
    '/items/:id',
    {
      schema: {
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({ dryRun: Type.Boolean({ default: false }) }),
        body: Item,
        response: { 200: Type.Object({ id: Type.Integer(), dryRun: Type.Boolean(), item: Item }) },
      },
    },
    async (request) => ({
      ...(request.params as object),
      ...(request.query as object),
      item: { ...(request.body as object), secret: 'not in the schema' },
    }),
  );
  return app;
}

const REQUESTS = [
  { url: '/items/7?dryRun=true', payload: { name: 'ab', count: 3 } },
  { url: '/items/7', payload: { name: 'ab', count: '3' } },
  { url: '/items/0', payload: { name: 'ab', count: 3 } },
  { url: '/items/x', payload: { name: 'ab', count: 3 } },
  { url: '/items/7?dryRun=maybe', payload: { name: 'ab', count: 3 } },
  { url: '/items/7', payload: { name: 'a', count: 3 } },
  { url: '/items/7', payload: { count: 3 } },
  { url: '/items/7', payload: 'not json' },
];

describe('lazySchemaCompilers', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('validates, coerces and serializes as the eager compilers do', async () => {
    const eager = appWith(false);
    const lazy = appWith(true);
    apps.push(eager, lazy);
    for (const request of REQUESTS) {
      const options = { method: 'POST' as const, ...request };
      const [expected, actual] = await Promise.all([eager.inject(options), lazy.inject(options)]);
      expect({ status: actual.statusCode, body: actual.json<unknown>() }).toEqual({
        status: expected.statusCode,
        body: expected.json<unknown>(),
      });
    }
    const ok = await lazy.inject({ method: 'POST', ...REQUESTS[0]! });
    expect(ok.json()).toEqual({ id: 7, dryRun: true, item: { name: 'ab', count: 3 } });
  });

  it('refuses a header schema at start-up, whose names fastify would then not lowercase', async () => {
    const app = Fastify({ schemaController: { compilersFactory: lazySchemaCompilers } });
    apps.push(app);
    app.get('/', { schema: { headers: Type.Object({ 'X-Token': Type.String() }) } }, () => 'ok');
    await expect(app.ready()).rejects.toThrow(/header schemas are not supported/);
  });
});
