// DESIGN §4 Guarantees: never more than maxUnavailable of a selector's pods down, whichever run
// took them down. A workload created in the second its first bounce was sent in: the run records
// its pods as originals, as no replacement of that bounce. Deleted and re-created (a new uid, read
// as another directive), the directive's runs must still know them for originals: taken for that
// bounce's replacements, they would cancel what the new uid's own bounces owe. Real Redis.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';

import type { PodInfo } from '../../src/kube/pods.js';
import type { SelectorJobData } from '../../src/queue/selector-job.js';
import { inheritedAtChoice, originalsAtChoice } from '../../src/workflow/others-down.js';
import { claimOwners } from '../../src/workflow/pod-claims.js';
import { SentPods } from '../../src/workflow/sent-pods.js';
import { deletePrefix, REDIS_URL } from '../support/redis.js';

const owner = { kind: 'ReplicaSet', name: 'web-5d8' };
const S = Math.floor(Date.now() / 1000) * 1000;
const pod = (uid: string, created: number, ready = true): PodInfo => ({
  name: uid,
  uid,
  createdAt: new Date(created),
  ready,
  terminating: false,
  controlled: true,
  owner,
});
const chosen = (pods: PodInfo[]) => pods.map(({ name, uid }) => ({ name, uid, owner }));

function job(uid: string, runKey: string, acceptedAt: number): SelectorJobData {
  return {
    directive: { namespace: 'web', name: 'web-certs', uid },
    generation: 1,
    runKey,
    acceptedAt: new Date(acceptedAt).toISOString(),
    selectorIndex: 0,
    selectorCount: 1,
    selector: { namespace: 'web', labels: { app: 'web' }, waitForReplicas: 0 },
    progress: { step: 'bounce' },
  };
}

describe('a directive re-created after its first bounce, in its workload’s second', () => {
  const prefix = `pbtest-recreated-originals-${randomBytes(3).toString('hex')}`;
  const redis = new Redis(REDIS_URL);
  const sent = new SentPods(redis, prefix, 60_000, 3_600_000);
  afterAll(async () => {
    await deletePrefix(prefix);
    redis.disconnect();
  });

  /** What a run chooses and keeps, as `select` does, then records sending `send` at `now`. */
  async function run(data: SelectorJobData, picked: PodInfo[], send: PodInfo[], now: number) {
    const inherited = inheritedAtChoice(await sent.list(data, claimOwners(picked), now), picked);
    const originals = originalsAtChoice(
      picked,
      inherited,
      Math.floor(Date.parse(data.acceptedAt) / 1000) * 1000,
    );
    await sent.keepInherited(data, inherited, originals);
    await sent.record(data, chosen(send), { now });
    return inherited;
  }

  it('counts the new uid’s bounces of those originals as owed until replaced', async () => {
    const [o1, o2, o3, o4] = ['o1', 'o2', 'o3', 'o4'].map((uid) => pod(uid, S));
    // The old uid's run, accepted in S, sends o1 in S: its originals are o1..o4.
    const old = await run(job('u-old', '0', S), [o1!, o2!, o3!, o4!], [o1!], S);
    expect(old.taken).toEqual([]);
    // Deleted; re-created as u-new in S+1. o1's replacement n1 is Ready; the new run sends o2.
    const n1 = pod('n1', S + 1000);
    const first = await run(job('u-new', '0', S + 1000), [n1, o2!, o3!, o4!], [o2!], S + 1000);
    // n1 fills o1's slot; o2..o4 are originals, no one's replacement.
    expect(first.theirs).toEqual(['n1']);
    expect(first.owed).toBe(0);
    // A newer run of u-new (an annotation), accepted in S+2: o2's replacement n2 is not Ready
    // and not chosen (created after the run was accepted). o2's slot is owed: one pod down.
    const picked = [n1, o3!, o4!];
    const data = job('u-new', String(S + 2000), S + 2000);
    const later = inheritedAtChoice(await sent.list(data, claimOwners(picked), S + 2000), picked);
    expect(later.taken.sort()).toEqual(['o1', 'o2']);
    expect(later.theirs).toEqual(['n1']);
    expect(later.owed).toBe(1);
  });
});
