// The floor a `serve` cold start is compared with: Node, the compile cache and fastify answering
// /readyz, started exactly as `node dist/cli.js serve` is (see bench/cold-start.ts).
import module from 'node:module';

module.enableCompileCache?.();

const { default: Fastify } = await import('fastify');
const app = Fastify();
app.get('/readyz', async () => ({ status: 'ready' }));
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
