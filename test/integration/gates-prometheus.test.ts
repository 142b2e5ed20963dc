// Alerts and query gates judged by a real Prometheus (Debian's package; .ci/run installs it): a
// firing alert closes, a pending one does not, names match as Prometheus's own regexes match them;
// a query must give one sample within its bounds; an unreachable, slow or erroring Prometheus is
// a closed gate; one request per gate per interval.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { GateJudge } from '../../src/gates/judge.js';
import { PrometheusClient } from '../../src/gates/prometheus.js';
import { requiredBinary } from '../support/binaries.js';
import { startFakePrometheus } from '../support/fake-prometheus.js';
import { startPrometheus, type OwnPrometheus } from '../support/prometheus-server.js';
import { freePort } from '../support/redis-server.js';

const prometheus = requiredBinary('prometheus', 'apt-get install -y prometheus');

const RULES = `groups:
  - name: gates
    interval: 1s
    rules:
      - alert: IstioHigh5xxRate
        expr: vector(1)
      - alert: KubePodCrashLooping
        expr: vector(1)
        for: 1h
`;

describe.skipIf(prometheus === undefined)('gates judged by a real Prometheus', () => {
  let prom: OwnPrometheus;
  let url: string;
  let silent: Server;
  let silentUrl: string;

  beforeAll(async () => {
    prom = await startPrometheus(prometheus!, RULES);
    url = prom.url;
    // Up once the first alert fires and the other is pending.
    await prom.alertsAre({ IstioHigh5xxRate: 'firing', KubePodCrashLooping: 'pending' });
    // A Prometheus that takes the connection and never answers.
    silent = createServer(() => undefined);
    const silentPort = await freePort();
    await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${silentPort}`;
  }, 90_000);

  afterAll(async () => {
    silent?.closeAllConnections();
    silent?.close();
    await prom?.close();
  });

  const judgeOf = (target = url, timeoutMs = 5000) =>
    new GateJudge({
      intervalMs: 30_000,
      prometheus: new PrometheusClient({ url: target, timeoutMs }),
    });

  it('closes on a firing alert whose name matches as a whole, not on a pending one', async () => {
    const judge = judgeOf();
    expect(await judge.judge([{ alerts: 'IstioHigh5xxRate|Other' }])).toMatchObject({
      open: false,
      name: 'alerts "IstioHigh5xxRate|Other"',
      why: 'firing: IstioHigh5xxRate',
    });
    expect(await judge.judge([{ alerts: 'KubePodCrashLooping' }])).toEqual({ open: true });
    // As PromQL's =~: anchored, so a part of the name does not match.
    expect(await judge.judge([{ alerts: 'Istio' }])).toEqual({ open: true });
    expect(await judge.judge([{ alerts: 'Istio.*' }])).toMatchObject({ open: false });
  });

  it("matches alert names as Prometheus's own =~ does (RE2)", async () => {
    const judge = judgeOf();
    const patterns = [
      'IstioHigh5xxRate',
      'Istio',
      'istio.*',
      '(?i)istio.*',
      'Other|Istio.*Rate',
      '\\QIstioHigh5xxRate\\E',
      'Istio\\w+5xx\\pLate',
      '[[:upper:]][[:alpha:]]+5xxRate',
    ];
    const matched: string[] = [];
    for (const pattern of patterns) {
      // label_replace matches its regex against the whole label value with Prometheus's engine.
      const named = 'label_replace(vector(1), "alertname", "IstioHigh5xxRate", "", "")';
      const query = `label_replace(${named}, "m", "y", "alertname", ${JSON.stringify(pattern)})`;
      const answer = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`);
      const body = (await answer.json()) as { data: { result: Array<{ metric: { m?: string } }> } };
      const promMatches = body.data.result[0]?.metric.m === 'y';
      const verdict = await judge.judge([{ alerts: pattern }]);
      expect(verdict.open, pattern).toBe(!promMatches);
      if (promMatches) matched.push(pattern);
    }
    expect(matched).toEqual(patterns.filter((pattern) => !['Istio', 'istio.*'].includes(pattern)));
  });

  it('opens on one sample within the bounds, and closes on anything else', async () => {
    const judge = judgeOf();
    expect(await judge.judge([{ query: 'vector(0.005)', max: 0.01 }])).toEqual({ open: true });
    expect(await judge.judge([{ query: 'scalar(vector(5))', min: 5, max: 5 }])).toEqual({
      open: true,
    });
    const closed = async (query: string, bounds: { max?: number; min?: number }) => {
      const verdict = await judge.judge([{ query, ...bounds }]);
      expect(verdict.open, query).toBe(false);
      return verdict.open ? '' : verdict.why;
    };
    expect(await closed('vector(0.5)', { max: 0.01 })).toBe('0.5 is above 0.01');
    expect(await closed('vector(1)', { min: 2 })).toBe('1 is below 2');
    expect(await closed('up{job="nothing"}', { max: 1 })).toBe('the query gave no sample');
    expect(
      await closed('vector(1) or label_replace(vector(2), "x", "y", "", "")', { max: 5 }),
    ).toBe('the query gave 2 samples, not one');
    expect(await closed('vector(0) / vector(0)', { max: 5 })).toBe('the query gave NaN');
    // Infinities are closed whatever the bounds, and named as Prometheus writes them.
    expect(await closed('vector(1) / vector(0)', { min: 0 })).toBe('the query gave +Inf');
    expect(await closed('vector(-1) / vector(0)', { max: 5 })).toBe('the query gave -Inf');
    expect(await closed('rate(', { max: 5 })).toMatch(/^Prometheus answered an error: /);
  });

  it('is closed on a sample value Prometheus would not write, saying which', async () => {
    const fake = await startFakePrometheus();
    try {
      for (const value of ['', ' 0.001', '0x0', 'Infinity', '1_0']) {
        fake.value = value;
        const verdict = await judgeOf(fake.url).judge([{ query: 'q', max: 0.01 }]);
        expect(verdict, JSON.stringify(value)).toMatchObject({
          open: false,
          why: `Prometheus answered a malformed sample value: ${JSON.stringify(value)}`,
        });
      }
      fake.value = '1e-07';
      expect(await judgeOf(fake.url).judge([{ query: 'q', max: 0.01 }])).toEqual({ open: true });
    } finally {
      await fake.close();
    }
  });

  it('is closed when Prometheus cannot be reached or does not answer in time', async () => {
    const unreachable = await judgeOf(`http://127.0.0.1:${await freePort()}`).judge([
      { alerts: 'Anything' },
    ]);
    expect(unreachable).toMatchObject({
      open: false,
      why: expect.stringMatching(/^Prometheus unreachable/),
    });
    const slow = await judgeOf(silentUrl, 300).judge([{ query: 'vector(1)', max: 5 }]);
    expect(slow).toMatchObject({ open: false, why: 'Prometheus did not answer in time' });
  });

  it('asks Prometheus once per distinct gate per interval, however many jobs ask', async () => {
    let now = 1_000_000;
    const client = new PrometheusClient({ url });
    const judge = new GateJudge({ intervalMs: 30_000, prometheus: client, now: () => now });
    const gates = [{ alerts: 'IstioHigh5xxRate' }, { query: 'vector(1)', max: 5 }];
    await Promise.all(Array.from({ length: 20 }, () => judge.judge(gates)));
    expect(client.requests).toBe(2);
    now += 29_999;
    await judge.judge(gates);
    expect(client.requests).toBe(2);
    now += 1;
    await judge.judge(gates);
    expect(client.requests).toBe(4);
    // Windows ask the clock only.
    await judge.judge([{ windows: [{ start: '00:00', end: '24:00' }] }]);
    expect(client.requests).toBe(4);
  });
});
