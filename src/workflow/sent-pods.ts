import type { Redis } from 'ioredis';
import type { PodInfo } from '../kube/pods.js';
import { runOwnersKey, sentPodsKey } from '../queue/names.js';
import type { ChosenPod, SelectorJobData } from '../queue/selector-job.js';
import { NOTHING_INHERITED, type Inherited, type SentPod } from './others-down.js';
import { withLuaCommands } from '../queue/lua-commands.js';

/**
 * Appends to the selector's field, dropping entries older than the age limit, in one step. An
 * entry whose pod the job inherited as another run's replacement is marked (`r`): it holds the
 * slot of a pod sent before it, and a later run must not count that slot twice.
 * Beside them, the run's owners: each pod's controller owner keeps the earliest second one of its
 * pods was sent a bounce in by this run.
 * KEYS: the hash, the run's owners. ARGV: the field, the oldest `since` kept, the key's TTL in ms,
 * the new entries, the job's field (what it inherited when it chose), the second sent in, the
 * owners, the run owners' TTL in ms.
 */
const APPEND = `
local kept = {}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  for _, entry in ipairs(cjson.decode(raw)) do
    if tonumber(entry.s) >= tonumber(ARGV[2]) then table.insert(kept, entry) end
  end
end
local theirs = {}
local inherited = redis.call('HGET', KEYS[1], ARGV[5])
if inherited then
  local decoded = cjson.decode(inherited)
  if type(decoded.theirs) == 'table' then
    for _, uid in ipairs(decoded.theirs) do theirs[uid] = true end
  end
end
for _, entry in ipairs(cjson.decode(ARGV[4])) do
  if theirs[entry.u] then entry.r = 1 end
  table.insert(kept, entry)
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(kept))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
for _, owner in ipairs(cjson.decode(ARGV[7])) do
  local first = redis.call('HGET', KEYS[2], owner)
  if not first or tonumber(first) > tonumber(ARGV[6]) then redis.call('HSET', KEYS[2], owner, ARGV[6]) end
end
redis.call('PEXPIRE', KEYS[2], ARGV[8])
return #kept
`;

interface SentCommands {
  podBouncerAppendSent(...args: string[]): Promise<number>;
}

/** One field per selector: its namespace and its labels, sorted, whatever run or generation. */
function fieldOf(data: SelectorJobData): string {
  const labels = Object.entries(data.selector.labels)
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return `${data.selector.namespace}/${labels.join(',')}`;
}

/** A controller owner as the run's owners name it: namespace, kind and name. */
function ownerKey(namespace: string, owner: { kind: string; name: string }): string {
  return `${namespace}/${owner.kind}/${owner.name}`;
}

/**
 * The seconds in which a run first sent a bounce to a pod of each controller owner (epoch ms,
 * by `ownerKey`): what tells the run's own replacements from older pods.
 */
export type FirstBounces = ReadonlyMap<string, number>;

/**
 * DESIGN §4: no replacement pod is bounced by the run that caused it. A pod whose controller
 * owner had a pod bounced by this run, created in or after the second of the first such bounce,
 * is that replacement (a StatefulSet's too: same owner, same name, another uid), even when it
 * was created in the second the run was accepted, where creationTimestamp alone cannot tell it
 * from an older pod. A pod of an owner the run did not touch is no replacement of it.
 */
export function isOwnReplacement(pod: PodInfo, namespace: string, first: FirstBounces): boolean {
  if (pod.owner === undefined) return false;
  const since = first.get(ownerKey(namespace, pod.owner));
  return since !== undefined && pod.createdAt.getTime() >= since;
}

/** The field of one job (its run and selector index) beside its selector's entries. */
function jobField(data: SelectorJobData): string {
  return `${fieldOf(data)}#${data.generation}.${data.runKey}.${data.selectorIndex}`;
}

/**
 * The pods a directive's runs bounced lately, per selector, kept in Redis beside the bounce lease
 * and written under it. A newer run reads them to count the pods an older one took down against
 * its own maxUnavailable (DESIGN §4 Guarantees). Entries older than `maxAgeMs` (the readiness
 * timeout: a replacement not Ready by then failed its run) are dropped.
 */
export class SentPods {
  private readonly redis: Redis & SentCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly maxAgeMs: number,
    /** How long a run's owners are kept: past the run's end, however long it waits. */
    private readonly runTtlMs: number,
  ) {
    this.redis = withLuaCommands<SentCommands>(redis, {
      podBouncerAppendSent: { numberOfKeys: 2, lua: APPEND },
    });
  }

  /** Records the controlled pods of a chunk before it is sent (bare pods are never replaced). */
  async record(data: SelectorJobData, pods: readonly ChosenPod[], now = Date.now()): Promise<void> {
    const since = Math.floor(now / 1000) * 1000;
    const controlled = pods.filter((pod) => pod.owner !== undefined);
    if (controlled.length === 0) return;
    const entries = controlled.map((pod) => ({ u: pod.uid, s: since }));
    const owners = new Set(
      pods.flatMap((pod) => (pod.owner ? [ownerKey(data.selector.namespace, pod.owner)] : [])),
    );
    await this.redis.podBouncerAppendSent(
      sentPodsKey(this.prefix, data.directive.uid),
      this.runOwnersKey(data),
      fieldOf(data),
      String(now - this.maxAgeMs),
      String(this.maxAgeMs),
      JSON.stringify(entries),
      jobField(data),
      String(since),
      JSON.stringify([...owners]),
      String(this.runTtlMs),
    );
  }

  /**
   * The owners this job's run sent a bounce to a pod of, any selector, with the second of the
   * first. Read after listing the pods: a replacement listed was recorded before its pod was sent.
   */
  async firstBounces(data: SelectorJobData): Promise<FirstBounces> {
    const raw = await this.redis.hgetall(this.runOwnersKey(data));
    return new Map(Object.entries(raw).map(([owner, since]) => [owner, Number(since)]));
  }

  private runOwnersKey(data: SelectorJobData): string {
    return runOwnersKey(this.prefix, data.directive.uid, data.generation, data.runKey);
  }

  /** The selector's pods sent a bounce within the age limit, once each, by any run. */
  async list(data: SelectorJobData, now = Date.now()): Promise<SentPod[]> {
    const raw = await this.redis.hget(sentPodsKey(this.prefix, data.directive.uid), fieldOf(data));
    const parsed: unknown = raw === null ? [] : JSON.parse(raw);
    const entries = Array.isArray(parsed) ? (parsed as { u: string; s: number; r?: 1 }[]) : [];
    const byUid = new Map<string, SentPod>();
    for (const { u, s, r } of entries) {
      if (s >= now - this.maxAgeMs && !byUid.has(u)) {
        byUid.set(u, { uid: u, since: s, ...(r === 1 ? { replacement: true } : {}) });
      }
    }
    return [...byUid.values()];
  }

  /** Keeps what a job inherited from other runs when it chose (beside the entries, not in the job). */
  async keepInherited(data: SelectorJobData, inherited: Inherited): Promise<void> {
    const key = sentPodsKey(this.prefix, data.directive.uid);
    // Nothing inherited, nothing stored (what an earlier attempt of the job kept is cleared).
    if (inherited.taken.length === 0) {
      await this.redis.hdel(key, jobField(data));
      return;
    }
    await this.redis
      .multi()
      .hset(key, jobField(data), JSON.stringify(inherited))
      .pexpire(key, this.maxAgeMs)
      .exec();
  }

  /** What the job inherited when it chose; nothing when it chose none or it has expired. */
  async inherited(data: SelectorJobData): Promise<Inherited> {
    const key = sentPodsKey(this.prefix, data.directive.uid);
    const raw = await this.redis.hget(key, jobField(data));
    if (raw === null) return NOTHING_INHERITED;
    const parsed = JSON.parse(raw) as Partial<Inherited>;
    const list = (value: unknown): string[] => (Array.isArray(value) ? (value as string[]) : []);
    return {
      taken: list(parsed.taken),
      owed: Number(parsed.owed ?? 0),
      theirs: list(parsed.theirs),
    };
  }
}
