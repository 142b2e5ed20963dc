// The `pod-bouncer` executable. The compile cache is turned on before anything else is loaded, so
// that every module after it (fastify, BullMQ, client-node) is compiled once and reused.
import module from 'node:module';

module.enableCompileCache?.();

const { runCli } = await import('./cli/run.js');
await runCli(process.argv);
