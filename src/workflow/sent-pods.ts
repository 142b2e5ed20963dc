import type { Redis } from 'ioredis';
import { podClaimsKey, sentPodsKey } from '../queue/names.js';
import type { ChosenPod, SelectorJobData } from '../queue/selector-job.js';
import {
  NOTHING_INHERITED,
  ownerKey,
  parseInherited,
  parseSent,
  type Inherited,
  type SentPod,
} from './others-down.js';
import { withLuaCommands } from '../queue/lua-commands.js';
import { READ_SENT, RECORD_SENT } from './sent-pods-script.js';
import { readSentAnswer, type SentAnswer } from './sibling-down.js';
import { claimsOf, fenceArgument, type ClaimsFence } from './pod-claims.js';
import { fieldOf, jobField, originalsField } from './sent-fields.js';
import { RunSentRecords } from './run-sent-records.js';

/** What a chunk is recorded with besides its pods (`SentPods.record`). */
export interface RecordOptions {
  /** Each selector's Ready replacements now, by index (several selectors at once). */
  credits?: Readonly<Record<string, number>>;
  now?: number;
  /** What the batch gate counted of other directives' claims (`pod-claims.ts`). */
  fence?: ClaimsFence | undefined;
}

interface SentCommands {
  podBouncerRecordSent(...args: string[]): Promise<string[]>;
  podBouncerReadSent(...args: string[]): Promise<string[]>;
}

/**
 * The pods a directive's runs bounced lately, per selector, kept in Redis beside the bounce lease
 * and written under it. A newer run reads them to count the pods an older one took down against
 * its own maxUnavailable (DESIGN §4 Guarantees). Entries older than `maxAgeMs` (the readiness
 * timeout: a replacement not Ready by then failed its run) are dropped.
 */
export class SentPods extends RunSentRecords {
  private readonly redis: Redis & SentCommands;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly maxAgeMs: number,
    /** How long a run's owners are kept: past the run's end, however long it waits. */
    runTtlMs: number,
  ) {
    super(redis, prefix, runTtlMs);
    this.redis = withLuaCommands<SentCommands>(redis, {
      podBouncerRecordSent: { numberOfKeys: 4, lua: RECORD_SENT },
      podBouncerReadSent: { numberOfKeys: 2, lua: READ_SENT },
    });
  }

  /**
   * Records a chunk as sent, just before it is sent, under the bounce lease (`sent-pods-script.ts`).
   * With several selectors at once (`order`), the pods another selector of the run has already
   * recorded are left out and answered: that selector sends them, so this one must not (DESIGN
   * §4: a pod terminating or gone is never sent another bounce); the rest are recorded as this
   * selector's in the same step, as far as every selector that chose them stays within its
   * maxUnavailable (`credits`: each one's Ready replacements now); the rest are held back. With
   * one at a time only the controlled pods are recorded (bare pods are never replaced). Across
   * directives, a pod to send is claimed in its namespace's record, in the same step: a pod another
   * directive's run claimed first is left out and answered with the second it was sent in (DESIGN
   * §4, whatever the directives); a claim of this directive's own (a re-run) lets it go. With a
   * `fence`, a pod not claimed yet is held back once other directives claimed more since.
   */
  async record(
    data: SelectorJobData,
    pods: readonly ChosenPod[],
    { credits = {}, now = Date.now(), fence }: RecordOptions = {},
  ): Promise<SentAnswer> {
    const mine = data.order === undefined ? '' : String(data.selectorIndex);
    const since = Math.floor(now / 1000) * 1000;
    const chunk = pods.map((pod) =>
      pod.owner === undefined
        ? { u: pod.uid }
        : { u: pod.uid, o: ownerKey(data.selector.namespace, pod.owner) },
    );
    const { uid } = data.directive;
    const answer = await this.redis.podBouncerRecordSent(
      sentPodsKey(this.prefix, uid),
      this.runOwnersKey(data),
      this.runSentKey(data),
      podClaimsKey(this.prefix, data.selector.namespace),
      fieldOf(data),
      String(now - this.maxAgeMs),
      String(this.maxAgeMs),
      JSON.stringify(chunk),
      jobField(data),
      String(since),
      String(this.runTtlMs),
      mine,
      JSON.stringify(credits),
      uid,
      fenceArgument(fence, data.selectorIndex),
      originalsField(data),
    );
    return readSentAnswer(answer);
  }

  /**
   * The selector's pods sent a bounce within the age limit, once each, by any run; then those of
   * `owners` (`claimOwners`) another directive's run claimed within it, read in the same step,
   * with the originals such runs recorded (a directive deleted and re-created is another one).
   */
  async list(
    data: SelectorJobData,
    owners: readonly string[] = [],
    now = Date.now(),
  ): Promise<SentPod[]> {
    const { raw, claimed } = await this.read(data, fieldOf(data), owners, now);
    const byUid = new Map<string, SentPod>();
    for (const pod of [...parseSent(raw, now - this.maxAgeMs), ...claimed]) {
      const first = byUid.get(pod.uid);
      // A pod sent twice: the first entry's second, and any originals either carries.
      const originals = [...(first?.originals ?? []), ...(pod.originals ?? [])];
      byUid.set(pod.uid, { ...(first ?? pod), ...(originals.length > 0 ? { originals } : {}) });
    }
    return [...byUid.values()];
  }

  /** A field of the hash of sent pods, and the claims of `owners`' pods by other directives. */
  private async read(
    data: SelectorJobData,
    field: string,
    owners: readonly string[],
    now: number,
  ): Promise<{ raw: string; claimed: SentPod[]; fence: ClaimsFence }> {
    const oldest = now - this.maxAgeMs;
    const [raw = '', ...rest] = await this.redis.podBouncerReadSent(
      sentPodsKey(this.prefix, data.directive.uid),
      podClaimsKey(this.prefix, data.selector.namespace),
      field,
      data.directive.uid,
      String(oldest),
      JSON.stringify(owners),
    );
    const claimed = claimsOf(rest);
    return { raw, claimed, fence: { owners, seen: claimed.length, oldest } };
  }

  /**
   * Keeps what a job inherited from other runs when it chose (beside the entries, not in the job),
   * and its originals, which the first entry it records takes along (`RECORD_SENT`).
   */
  async keepInherited(
    data: SelectorJobData,
    inherited: Inherited,
    originals: readonly string[] = [],
  ): Promise<void> {
    const key = sentPodsKey(this.prefix, data.directive.uid);
    const [field, carried] = [jobField(data), originalsField(data)];
    // Nothing to keep, nothing stored (what an earlier attempt of the job kept is cleared).
    if (inherited.taken.length === 0 && originals.length === 0) {
      await this.redis.hdel(key, field, carried);
      return;
    }
    const multi = this.redis.multi().hset(key, field, JSON.stringify(inherited));
    if (originals.length > 0) multi.hset(key, carried, JSON.stringify(originals));
    else multi.hdel(key, carried);
    await multi.pexpire(key, this.maxAgeMs).exec();
  }

  /**
   * What the job inherited when it chose (nothing when it chose none or it has expired), and the
   * pods of `owners` another directive's run claimed within the age limit, as they are now (read
   * in the same step): `withClaims` counts those claimed since it chose; a chunk sent after it is
   * fenced by them.
   */
  async inherited(
    data: SelectorJobData,
    owners: readonly string[] = [],
    now = Date.now(),
  ): Promise<{ kept: Inherited; claimed: SentPod[]; fence: ClaimsFence }> {
    const { raw, claimed, fence } = await this.read(data, jobField(data), owners, now);
    return { kept: raw === '' ? NOTHING_INHERITED : parseInherited(raw), claimed, fence };
  }
}
