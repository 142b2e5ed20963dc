import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attack, watchRss, type AttackKind, type AttackMode } from '../../bench/lib/attack.js';
import { ATTACK_SECRETS, attackEnv, sendReal } from '../../bench/lib/real-event.js';
import { directive, eventually, startHarness, type Harness } from '../support/harness.js';
import { startCli, stopCli, type CliProcess } from '../support/processes.js';

/** The api's memory limit in the chart (api.resources.limits.memory), and its heap cap. */
const API_LIMIT_BYTES = 256 * 1024 * 1024;
// The api as the chart runs it (api.nodeOptions, api.resources.limits.memory).
const API_NODE_OPTIONS = '--max-old-space-size=160 --max-semi-space-size=4';
const ATTACKERS = 200;
const MODES: AttackMode[] = ['tokens', 'hmac', 'standard', 'tokenreview'];
const KINDS: AttackKind[] = ['slow-body', 'junk'];

describe('200 unauthenticated slow or junk requests at once, in each auth mode', () => {
  let h: Harness;
  let api: CliProcess;
  let url: string;
  beforeAll(async () => {
    h = await startHarness('load', { worker: false });
    h.sim.registerToken(ATTACK_SECRETS.serviceAccountToken, {
      username: 'system:serviceaccount:cert-manager:issuer',
      audiences: [ATTACK_SECRETS.audience],
    });
    h.sim.applyDirective(directive('loadns', 'warm-up', [{ namespace: 'loadns', labels: {} }]));
    for (const mode of MODES) {
      for (const kind of KINDS) {
        h.sim.applyDirective(
          directive('loadns', `${mode}-${kind}`, [{ namespace: 'loadns', labels: {} }]),
        );
      }
    }
    api = startCli('serve', {
      ...h.env,
      ...attackEnv(2),
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_OPTIONS: API_NODE_OPTIONS,
    });
    url = await eventually(
      'the api to listen',
      () => /"url":"(http:\/\/[^"]+)"[^\n]*pod-bouncer is listening/.exec(api.output())?.[1],
    );
  }, 60_000);
  afterAll(async () => {
    if (api) await stopCli(api, 'SIGTERM');
    await h.close();
  });

  it.each(MODES.flatMap((mode) => KINDS.map((kind) => [mode, kind] as const)))(
    '%s mode, %s attack: the real event is accepted, every attacker is cut off, RSS stays under the limit',
    { timeout: 60_000 },
    async (mode, kind) => {
      if (mode === 'tokenreview') {
        // A sender seen before the flood: its verdict is cached. (A token first seen during a
        // flood that has used up the review budget is answered 503 with Retry-After.)
        const warm = await sendReal(url, mode, { namespace: 'loadns', name: 'warm-up' }, true);
        expect(warm.status).toBe(200);
      }
      const rss = watchRss(api.child.pid!);
      const attacking = attack(url, mode, kind, ATTACKERS, {
        giveUpMs: 20_000,
        junkBytes: 256 * 1024,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const real = await sendReal(url, mode, { namespace: 'loadns', name: `${mode}-${kind}` });
      const ends = await attacking;
      const peak = rss.stop();
      expect(real.status).toBe(202);
      expect(ends.filter((end) => end !== 'closed')).toEqual([]);
      expect(peak).toBeLessThan(API_LIMIT_BYTES);
      console.log(`${mode}/${kind}: peak RSS ${Math.round(peak / 1048576)} MiB`);
    },
  );
});
