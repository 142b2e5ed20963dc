// What the api makes of BullMQ, loaded with `import()` by api-queues.ts. A module of our own in
// between, because BullMQ is CommonJS: a bundled `import('bullmq')` gives only its `default`, while
// a static import here gives the named classes under Node and in the bundle alike.
export { FlowProducer, Queue } from 'bullmq';
