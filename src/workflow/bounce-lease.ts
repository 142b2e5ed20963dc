import type { Redis } from 'ioredis';
import { LEASE_OWNER_FIELD, QUEUE_NAME, bounceLeaseKey, latestRunKey } from '../queue/names.js';
import type { SelectorJobData } from '../queue/selector-job.js';
import { withLuaCommands } from '../queue/lua-commands.js';
import { LUA_RUN_ORDER } from '../queue/run-identity.js';

/**
 * One run bounces at a time per directive (DESIGN §2 *Runs*). Every effect that depends on what
 * the pods are — choosing them, sending a batch of evictions or deletions — is done under the
 * directive's bounce lease in Redis, held by the jobs of one run at a time:
 *
 * - it is taken only by a job of the directive's latest run, decided in the same script that
 *   reads the latest-run record: once a newer run is claimed, the older one sends nothing more;
 * - a newer run chooses its pods only once the older run's batches in flight were answered (the
 *   older jobs give the lease back after them), so its LIST shows those pods terminating or gone;
 * - jobs of the same run share it (a hash of holders): with maxConcurrentSelectors > 1 the run's
 *   selectors send their batches side by side instead of queueing for one another, which the
 *   guarantee, about runs, never asked of them;
 * - a holder is a job and its BullMQ lock token, and holds only while that lock is the same: a
 *   killed worker stops renewing it, and its hold lapses with it (after JOB_LOCK_MS), without a
 *   clock of its own to outlive a slow batch. A job that moves to delayed, ends or fails drops its
 *   BullMQ lock, and so its hold.
 *
 * - the lease is by namespace/name, as DESIGN names a directive: one deleted and re-created under
 *   the same name (a new uid) chooses only once its predecessor's batch in flight was answered. The
 *   hash names the uid whose run took it last (`LEASE_OWNER_FIELD`), with that run's acceptance: a
 *   job of another uid accepted no later is of a directive since deleted, and is superseded.
 *
 * KEYS: the lease (a hash: job id → "<lock token> <uid> <generation> <runKey>", and the owner), the
 * latest-run record of the job's uid. ARGV: the job id, its lock token ('' when it has none), its
 * generation, its runKey, the queue's key prefix (a job's lock is `<prefix><job id>:lock`), the
 * key's TTL in ms, the job's uid, its run's acceptance (epoch ms; 0 when unknown).
 */
const ACQUIRE = `${LUA_RUN_ORDER}
local current = redis.call('GET', KEYS[2])
if current then
  local run = cjson.decode(current)
  if not sameRun(run.generation, run.runKey, ARGV[3], ARGV[4]) then return 'superseded' end
end
local owner = redis.call('HGET', KEYS[1], '${LEASE_OWNER_FIELD}')
if owner then
  local uid, at = string.match(owner, '^(%S+) (%S+)$')
  if uid ~= ARGV[7] and not acceptedLater(ARGV[8], at) then return 'superseded' end
end
local mine = ARGV[7] .. ' ' .. ARGV[3] .. ' ' .. ARGV[4]
local holders = redis.call('HGETALL', KEYS[1])
for i = 1, #holders, 2 do
  local job = holders[i]
  if job ~= ARGV[1] and job ~= '${LEASE_OWNER_FIELD}' then
    local token, run = string.match(holders[i + 1], '^(%S*) (.*)$')
    if token ~= '' and redis.call('GET', ARGV[5] .. job .. ':lock') ~= token then
      redis.call('HDEL', KEYS[1], job)
    elseif run ~= mine then
      return 'busy'
    end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. mine, '${LEASE_OWNER_FIELD}', ARGV[7] .. ' ' .. ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 'held'
`;

/* KEYS[1]: the lease. ARGV[1]: the job id. Only the job's own hold is given back. */
const RELEASE = `
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
`;

/*
 * KEYS[1]: the lease. ARGV: the job id, the queue's key prefix. How many other jobs, of any run,
 * hold the lease now (holds whose BullMQ lock lapsed are dropped on the way).
 */
const OTHERS = `
local others = 0
local holders = redis.call('HGETALL', KEYS[1])
for i = 1, #holders, 2 do
  local job = holders[i]
  if job ~= ARGV[1] and job ~= '${LEASE_OWNER_FIELD}' then
    local token = string.match(holders[i + 1], '^(%S*) ')
    if token ~= '' and redis.call('GET', ARGV[2] .. job .. ':lock') ~= token then
      redis.call('HDEL', KEYS[1], job)
    else
      others = others + 1
    end
  end
end
return others
`;

/**
 * How long a lease key lives at most: only a bound on what a crashed holder leaves in Redis. A
 * holder's BullMQ lock decides whether it still holds; a job without a lock token (never so under
 * a Worker) holds for this long.
 */
const LEASE_TTL_MS = 3_600_000;

/** Held: the caller may choose or send. Busy: a job of another run of the directive is doing so. */
export type LeaseAnswer = 'held' | 'superseded' | 'busy';

interface LeaseCommands {
  podBouncerAcquireLease(...args: string[]): Promise<LeaseAnswer>;
  podBouncerReleaseLease(...args: string[]): Promise<number>;
  podBouncerOtherHolders(...args: string[]): Promise<number>;
}

/** The directive bounce leases in Redis (one hash per directive namespace/name). */
export class BounceLease {
  private readonly redis: Redis & LeaseCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.redis = withLuaCommands<LeaseCommands>(redis, {
      podBouncerAcquireLease: { numberOfKeys: 2, lua: ACQUIRE },
      podBouncerReleaseLease: { numberOfKeys: 1, lua: RELEASE },
      podBouncerOtherHolders: { numberOfKeys: 1, lua: OTHERS },
    });
  }

  /** Takes the lease for the job (`token`: its BullMQ lock token), atomically with the run check. */
  acquire(data: SelectorJobData, jobId: string, token: string | undefined): Promise<LeaseAnswer> {
    const uid = data.directive.uid;
    const acceptedAt = Date.parse(data.acceptedAt);
    return this.redis.podBouncerAcquireLease(
      bounceLeaseKey(this.prefix, data.directive),
      latestRunKey(this.prefix, uid),
      jobId,
      token ?? '',
      String(data.generation),
      data.runKey,
      `${this.prefix}:${QUEUE_NAME}:`,
      String(LEASE_TTL_MS),
      uid,
      String(Number.isNaN(acceptedAt) ? 0 : acceptedAt),
    );
  }

  /** Gives the lease back, if the job holds it. */
  async release(data: SelectorJobData, jobId: string): Promise<void> {
    await this.redis.podBouncerReleaseLease(bounceLeaseKey(this.prefix, data.directive), jobId);
  }

  /**
   * True when no other job holds the directive's lease: no batch of any of its runs is in flight.
   * The run's own jobs share the lease, so taking it says nothing about them; this does.
   */
  async quiet(data: SelectorJobData, jobId: string): Promise<boolean> {
    const others = await this.redis.podBouncerOtherHolders(
      bounceLeaseKey(this.prefix, data.directive),
      jobId,
      `${this.prefix}:${QUEUE_NAME}:`,
    );
    return others === 0;
  }
}

/** One job's hold on its directive's lease, as a step sees it. */
export interface JobLease {
  acquire(): Promise<LeaseAnswer>;
  release(): Promise<void>;
  /** No other job holds the lease: no batch is in flight. */
  quiet(): Promise<boolean>;
}

/** The job's lease; without a lease store (a worker without Redis for it) always held. */
export function jobLease(
  lease: BounceLease | undefined,
  data: SelectorJobData,
  jobId: string,
  token: string | undefined,
): JobLease {
  if (lease === undefined) {
    return {
      acquire: () => Promise.resolve('held'),
      release: () => Promise.resolve(),
      quiet: () => Promise.resolve(true),
    };
  }
  return {
    acquire: () => lease.acquire(data, jobId, token),
    release: () => lease.release(data, jobId),
    quiet: () => lease.quiet(data, jobId),
  };
}
