// The servers the ingest benchmark loads, in one child process so that autocannon (in the parent)
// and the simulator (another child) do not share their event loop: pod-bouncer's api, a naive
// route doing one FlowProducer.add per request in the same setup (same Redis, same chain), and a
// bare fastify route. argv: <kubeconfig>. Prints one JSON line with the URLs, serves until SIGTERM.
import { randomBytes, randomUUID } from 'node:crypto';
import { FlowProducer, type FlowJob } from 'bullmq';
import fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createProducerConnection } from '../src/queue/connection.js';
import { createKubeGateway } from '../src/kube/open-gateway.js';
import { startServe } from '../src/runtime/serve.js';
import { REDIS_URL, TOKEN, deletePrefix, ingestSpec } from './lib/stack.js';

const prefix = `pbbench-ingest-${randomBytes(3).toString('hex')}`;
const config = loadConfig({
  REDIS_URL,
  KUBECONFIG: process.argv[2] ?? '',
  WEBHOOK_TOKENS: TOKEN,
  QUEUE_PREFIX: prefix,
  HOST: '127.0.0.1',
  PORT: '0',
  KUBE_QPS: '100000',
  KUBE_BURST: '100000',
  // Every request still pays for the count; the load is one token's, far over the default.
  RATE_LIMIT_PER_MINUTE: '1000000',
  MAX_RUNS_PER_HOUR: '1000000',
  LOG_LEVEL: 'silent',
});
const log = createLogger(config.logLevel);
const serve = await startServe(config, log, createKubeGateway(config));

// Accept the duplicate once, which also starts the api's directive watch for the namespace.
const first = await fetch(`${serve.url}/v1/events`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  body: JSON.stringify({ directive: { namespace: 'in', name: 'dup' } }),
});
if (first.status !== 202) throw new Error(`warm-up answered ${first.status}`);
if (!(await (await serve.directives()).ready('in')))
  throw new Error('the directive watch did not sync');

const redis = createProducerConnection(config.redisUrl);
const flows = new FlowProducer({ connection: redis, prefix: `${prefix}-naive` });
const naive = fastify({ logger: false });
naive.post('/v1/events', async (request, reply) => {
  const { directive: ref } = request.body as { directive: { namespace: string; name: string } };
  const uid = randomUUID();
  const jobs: FlowJob[] = ingestSpec(0).map((selector, index) => ({
    name: `${ref.namespace}/${ref.name} #${index}`,
    queueName: 'bounce',
    data: { directive: { ...ref, uid }, generation: 1, selectorIndex: index, selector },
    opts: { jobId: `${uid}.g1.s${index}` },
  }));
  const [head, ...rest] = jobs;
  await flows.add(
    rest.reduce<FlowJob>((child, parent) => ({ ...parent, children: [child] }), head!),
  );
  return reply.code(202).send({ directive: `${ref.namespace}/${ref.name}`, duplicate: false });
});
const bare = fastify({ logger: false });
bare.post('/v1/events', async (_request, reply) => reply.code(202).send({ accepted: true }));
// The api's PENDING writes trail its answers: the next load starts once they are all made, so
// that they neither flatter one load nor slow the next.
bare.get('/settled', async () => {
  await serve.followUpsDone();
  return { settled: true };
});
const naiveUrl = await naive.listen({ port: 0, host: '127.0.0.1' });
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
console.log(JSON.stringify({ api: serve.url, naive: naiveUrl, bare: bareUrl }));

process.on('SIGTERM', () => {
  void (async () => {
    await Promise.allSettled([naive.close(), bare.close(), flows.close(), serve.close()]);
    redis.disconnect();
    await deletePrefix(prefix);
    await deletePrefix(`${prefix}-naive`);
    process.exit(0);
  })();
});
