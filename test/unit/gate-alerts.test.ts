// The regex of an alerts gate has PromQL's =~ semantics (RE2, anchored on both ends) and is
// matched in time linear in the alert name: a pattern that makes a backtracking engine run for
// minutes on an ordinary alert name is answered at once; what RE2 does not compile is refused.
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { alertNames } from '../../src/gates/alert-names.js';
import { GateJudge } from '../../src/gates/judge.js';
import { PrometheusClient } from '../../src/gates/prometheus.js';
import { checkGates } from '../../src/gates/validate.js';
import type { Problem } from '../../src/problem.js';

function matcher(pattern: string): (alertname: string) => boolean {
  const compiled = alertNames(pattern);
  if ('problem' in compiled) throw new Error(compiled.problem);
  return (alertname) => compiled.matches(alertname);
}

function problems(gates: unknown): Problem[] {
  const found: Problem[] = [];
  checkGates(gates, 'spec.gates', found);
  return found;
}

describe('an alerts regex', () => {
  it('matches the whole name, as PromQL =~ does', () => {
    const crashLooping = matcher('IstioHigh5xxRate|KubePodCrash.*');
    expect(crashLooping('KubePodCrashLooping')).toBe(true);
    expect(crashLooping('IstioHigh5xxRate')).toBe(true);
    // Anchored on both ends: a part of the name, or a name with more around it, does not match.
    expect(crashLooping('IstioHigh5xxRateX')).toBe(false);
    expect(crashLooping('XKubePodCrashLooping')).toBe(false);
    expect(matcher('Istio')('IstioHigh5xxRate')).toBe(false);
    // An alternation binds inside the anchors: `A|B` is `^(?:A|B)$`, not `^A|B$`.
    expect(matcher('A|B')('AB')).toBe(false);
    expect(matcher('(?i)kubepod.*')('KubePodCrashLooping')).toBe(true);
    expect(matcher('.*')('')).toBe(true);
    // Prometheus 3 compiles `^(?s:…)$`: `.` matches a newline too.
    expect(matcher('a.b')('a\nb')).toBe(true);
  });

  it('answers a pathological pattern on a long alert name at once, and correctly', () => {
    // A backtracking engine tries 3^n paths here: minutes for the 22-character name.
    const pattern = 'Kube(\\w|\\w|\\w)*Z';
    const long = `KubePodCrashLooping${'Abc'.repeat(10_000)}`;
    const started = performance.now();
    expect(matcher(pattern)('KubePodCrashLoopingAbc')).toBe(false);
    expect(matcher(pattern)(long)).toBe(false);
    expect(matcher(pattern)(`${long}Z`)).toBe(true);
    expect(matcher('Kub(\\w|\\w|\\w)*c')('KubePodCrashLoopingAbc')).toBe(true);
    // Generous: the backtracking engine took over a minute on the short name alone.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses what RE2 does not compile, naming the field and the reason', () => {
    const refused: Array<[string, RegExp]> = [
      ['(a)\\1', /invalid escape sequence: `\\1`/],
      ['(?=Kube)K.*', /invalid or unsupported Perl syntax: `\(\?=`/],
      ['(?!Kube).*', /invalid or unsupported Perl syntax: `\(\?!`/],
      ['\\u0041', /invalid escape sequence: `\\u`/],
      ['a{1001}', /invalid repeat count/],
      ['(', /missing closing \)/],
      ['a)(b', /unexpected \)/],
    ];
    for (const [pattern, reason] of refused) {
      const found = problems([{ alerts: pattern }]);
      expect(found, pattern).toEqual([
        {
          field: 'spec.gates[0].alerts',
          message: expect.stringMatching(/^is not an RE2 regular expression \(as PromQL's =~\): /),
        },
      ]);
      expect(found[0]?.message, pattern).toMatch(reason);
      expect(found[0]?.message, pattern).not.toMatch(/\(\?s\)/);
    }
    // RE2 syntax that JavaScript's engine lacks is accepted.
    expect(problems([{ alerts: '(?P<name>Kube.*)|\\QIstio.5xx\\E' }])).toEqual([]);
    expect(matcher('\\QIstio.5xx\\E')('Istio.5xx')).toBe(true);
    expect(matcher('\\QIstio.5xx\\E')('IstioX5xx')).toBe(false);
  });

  it('is refused at start-up in GATE_ALERTS with the reason', () => {
    expect(() => loadConfig({ PROMETHEUS_URL: 'http://p', GATE_ALERTS: '(?=X)X' })).toThrow(
      /^GATE_ALERTS must be an RE2 regular expression of alert names \(as PromQL's =~\), not "\(\?=X\)X": .*invalid or unsupported Perl syntax/,
    );
    expect(
      loadConfig({ PROMETHEUS_URL: 'http://p', GATE_ALERTS: '(?i)meshdown' }).gates,
    ).toMatchObject({
      installation: [{ alerts: '(?i)meshdown' }],
    });
  });

  it('keeps a gate stored before with a regex RE2 refuses closed, saying why', async () => {
    // Nothing listens on port 9: the verdict comes before any request.
    const client = new PrometheusClient({ url: 'http://127.0.0.1:9' });
    const judge = new GateJudge({ intervalMs: 30_000, prometheus: client });
    expect(await judge.judge([{ alerts: '(?=Kube)K.*' }])).toMatchObject({
      open: false,
      why: expect.stringMatching(/^not an RE2 regex: .*invalid or unsupported Perl syntax/),
    });
    expect(client.requests).toBe(0);
  });
});
