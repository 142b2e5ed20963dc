import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directive, startHarness, TOKEN, type Harness } from '../support/harness.js';
import { onePodDirective } from '../support/workloads.js';

/**
 * Property: whatever arrives at POST /v1/events — any JSON, near-valid shapes of every kind the
 * endpoint knows, bytes that are not JSON, any content type, CloudEvents headers, broken or
 * missing credentials — the answer is 202 (or 200 for a dry run) or a 4xx with an error body,
 * never a 5xx; the process stays healthy; and only accepted events put jobs in the queue.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

const text = fc.string({ maxLength: 24 });
const name = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('fuzz', 'target', 'missing') },
  fc.constantFrom('', 'Target', 'a'.repeat(300), 'x,y', '../etc', 'a b', '-a', 'ä'),
  text,
);
const timestamp = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  fc.constantFrom('2026-11-29T12:00:00Z', '2026-11-29T12:00:00+01:00', 'yesterday', '', '0'),
  fc.jsonValue(),
);
const labels = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom('app', 'a/b', 'x,y', 'k!'), text), fc.oneof(name, text)),
  fc.array(fc.record({ key: fc.oneof(fc.constant('app'), text), value: fc.oneof(name, text) })),
  fc.jsonValue(),
);
const selector = fc.record(
  {
    namespace: fc.oneof(name, fc.jsonValue()),
    labels,
    waitForReplicas: fc.oneof(
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(2 ** 32, 1.5, Number.MAX_SAFE_INTEGER),
      text,
    ),
    rootCertSync: fc.jsonValue(),
  },
  { requiredKeys: [] },
);
const manifest = fc.record(
  {
    apiVersion: fc.oneof(fc.constant('internal.gloo.solo.io/v2'), text),
    kind: fc.oneof(fc.constant('PodBounceDirective'), fc.constantFrom('Pod', 'Event'), text),
    metadata: fc.record(
      { namespace: name, name, generation: fc.jsonValue(), uid: text },
      { requiredKeys: [] },
    ),
    spec: fc.oneof(
      fc.record(
        { podsToBounce: fc.array(selector, { maxLength: 3 }), meshRef: fc.jsonValue() },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: [] },
);
const reference = fc.record({ namespace: name, name }, { requiredKeys: [] });
const native = fc.record(
  { directive: fc.oneof(reference, manifest, fc.jsonValue()), issuedAt: timestamp },
  { requiredKeys: [] },
);
const watchEvent = fc.record({
  type: fc.oneof(fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'), text),
  object: manifest,
});
const kubeEvent = fc.record(
  {
    apiVersion: fc.constant('v1'),
    kind: fc.constant('Event'),
    involvedObject: fc.record(
      { kind: fc.constantFrom('PodBounceDirective', 'Pod', ''), namespace: name, name },
      { requiredKeys: [] },
    ),
    firstTimestamp: timestamp,
    eventTime: timestamp,
    reason: text,
  },
  { requiredKeys: [] },
);
// Shapes one mutation away from valid, so that many requests reach the cluster and the queue.
const goodLabels = fc.dictionary(
  fc.constantFrom('app', 'tier', 'x,y', 'example.com/role'),
  fc.constantFrom('target', 'a', '', 'a,b!=c', 'in (x)'),
  { maxKeys: 2 },
);
const goodManifest = fc
  .record({
    name: fc.constantFrom('inline-a', 'inline-b', 'Inline', ''),
    namespace: fc.constantFrom('fuzz', 'fuzz', 'bad ns'),
    labels: goodLabels,
    waitForReplicas: fc.integer({ min: -1, max: 3 }),
    selectors: fc.integer({ min: 0, max: 3 }),
  })
  .map((m) =>
    directive(
      'fuzz',
      m.name,
      Array.from({ length: m.selectors }, () => ({
        namespace: m.namespace,
        labels: m.labels,
        waitForReplicas: m.waitForReplicas,
      })),
    ),
  );
const goodRef = fc.record({
  namespace: fc.constantFrom('fuzz', 'fuzz', 'nowhere'),
  name: fc.constantFrom('target', 'target', 'missing', 'inline-a'),
});
const nearValid = fc.oneof(
  fc.record(
    { directive: fc.oneof(goodRef, goodManifest), issuedAt: timestamp },
    { requiredKeys: ['directive'] },
  ),
  goodManifest,
  fc.record({ type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'), object: goodManifest }),
  fc.record({
    kind: fc.constant('Event'),
    involvedObject: goodRef.map((ref) => ({ kind: 'PodBounceDirective', ...ref })),
    firstTimestamp: timestamp,
  }),
);
const inner = fc.oneof(
  { weight: 4, arbitrary: nearValid },
  native,
  manifest,
  watchEvent,
  kubeEvent,
  fc.jsonValue(),
);
const argo = fc.record({
  context: fc.jsonValue(),
  data: fc.oneof(fc.record({ body: inner }), fc.jsonValue()),
});
const structured = fc.record(
  {
    specversion: fc.oneof(fc.constantFrom('1.0', '0.3'), text),
    id: text,
    source: text,
    type: text,
    time: timestamp,
    datacontenttype: fc.constantFrom('application/json', 'text/plain'),
    data: inner,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  { weight: 20, arbitrary: nearValid },
  native,
  manifest,
  watchEvent,
  kubeEvent,
  argo,
  structured,
  fc.jsonValue(),
);

const raw = fc.oneof(
  { weight: 6, arbitrary: body.map((value) => JSON.stringify(value) ?? 'null') },
  body.map((value) => (JSON.stringify(value) ?? 'null').slice(0, -1)),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.constantFrom('', '{', 'null', '[]', '"x"', '1e999', '{"__proto__": {"x": 1}}', '\uFEFF{}'),
);
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'application/cloudevents+json',
    'application/cloudevents-batch+json',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    '',
  ),
  fc.stringMatching(/^[\x21-\x7e]{0,30}$/),
);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
const ceHeaders = fc.record(
  {
    'ce-specversion': fc.oneof({ weight: 3, arbitrary: fc.constant('1.0') }, headerValue),
    'ce-id': headerValue,
    'ce-source': headerValue,
    'ce-type': headerValue,
    'ce-time': headerValue,
  },
  { requiredKeys: [] },
);
// One request in four is a binary-mode CloudEvent (the others carry no ce-* header at all).
const ceMaybe = fc
  .tuple(fc.integer({ min: 0, max: 3 }), ceHeaders, fc.boolean())
  .map(([dice, headers, wellFormed]) =>
    dice > 0
      ? {}
      : wellFormed
        ? {
            ...headers,
            'ce-specversion': '1.0',
            'ce-id': 'id-1',
            'ce-source': 'fuzz',
            'ce-type': 't',
          }
        : headers,
  );
const extraHeaders = fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,12}$/), headerValue, {
  maxKeys: 3,
});
const auth = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ authorization: `Bearer ${TOKEN}` }) },
  fc.constant({}),
  headerValue.map((value) => ({ authorization: value })),
  headerValue.map((value) => ({ 'x-signature-256': `sha256=${value}` })),
);
const query = fc.constantFrom('', '', '', '?dryRun=true', '?dryRun=1', '?dryRun=%zz', '?x=y&x=z');

describe('fuzzing POST /v1/events', () => {
  let h: Harness;
  beforeAll(async () => {
    // No worker: accepted jobs stay in the queue, where the test can count them.
    h = await startHarness('fuzz', { worker: false });
    onePodDirective(h, 'fuzz', 'target', { app: 'target' });
  });
  afterAll(async () => h.close());

  it(
    `answers ${RUNS} generated requests with 2xx or 4xx, never 5xx`,
    { timeout: 120_000 },
    async () => {
      const statuses = new Map<number, number>();
      const acceptedJobs = new Set<string>();
      await fc.assert(
        fc.asyncProperty(
          raw,
          contentType,
          ceMaybe,
          extraHeaders,
          auth,
          query,
          async (payload, type, ce, extra, credentials, search) => {
            const headers: Record<string, string> = { ...extra, ...ce, ...credentials };
            if (type !== '') headers['content-type'] = type;
            const answer = await h.serve.app.inject({
              method: 'POST',
              url: `/v1/events${search}`,
              headers,
              payload,
            });
            statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
            const parsed = answer.body === '' ? undefined : JSON.parse(answer.body);
            if (answer.statusCode === 202) {
              for (const id of parsed.jobIds ?? []) acceptedJobs.add(id);
              return true;
            }
            if (answer.statusCode === 200) return search.includes('dryRun');
            expect(answer.statusCode, answer.body).toBeGreaterThanOrEqual(400);
            expect(answer.statusCode, answer.body).toBeLessThan(500);
            expect(parsed).toEqual({ error: expect.any(String), message: expect.any(String) });
            return true;
          },
        ),
        { numRuns: RUNS },
      );
      console.log(
        `fuzz: ${RUNS} requests, answers ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      // The generators reach past the front door: some requests were accepted, most refused.
      expect(statuses.get(202) ?? 0).toBeGreaterThan(0);
      expect([...statuses.keys()].filter((status) => status >= 400).length).toBeGreaterThan(3);

      expect((await h.serve.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await h.serve.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      const jobs = await h.serve.queue.getJobs([
        'waiting',
        'waiting-children',
        'delayed',
        'active',
        'completed',
        'failed',
        'prioritized',
      ]);
      const unexpected = jobs.map((job) => job.id).filter((id) => !acceptedJobs.has(id ?? ''));
      expect(unexpected).toEqual([]);
      expect(h.sim.deletedPods()).toEqual([]);
    },
  );
});
