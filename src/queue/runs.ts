import type { Redis } from 'ioredis';
import { QUEUE_NAME, acceptedKey, latestRunKey } from './names.js';

/**
 * One run: a pass over a directive's selectors for one (uid, generation, issuedAt). Stored as JSON
 * at `latestRunKey(prefix, uid)` for the directive's latest run; a job whose (generation, runKey)
 * is not that run's is superseded and bounces nothing.
 */
export interface Run {
  uid: string;
  generation: number;
  /** `issuedAt` as epoch milliseconds in decimal, or "0" when the run has none. */
  runKey: string;
  issuedAt?: string;
  jobIds: string[];
  acceptedAt: string;
}

/** The directive's latest run, or undefined when none was accepted (or it outlived retention). */
export async function latestRun(
  redis: Redis,
  prefix: string,
  uid: string,
): Promise<Run | undefined> {
  const stored = await redis.get(latestRunKey(prefix, uid));
  return stored === null ? undefined : (JSON.parse(stored) as Run);
}

/** Whether a job of (generation, runKey) belongs to the latest run; no record: it does. */
export function isLatest(run: Run | undefined, generation: number, runKey: string): boolean {
  return run === undefined || (run.generation === generation && run.runKey === runKey);
}

/** A claim's answer: a new run (the caller enqueues it), or an earlier one that already covers it. */
export type RunClaim =
  | { decision: 'new'; previous: Run | undefined }
  | {
      decision: 'duplicate';
      latest: Run | undefined;
      inProgress: boolean;
      /** The accepted marker's remaining lifetime (ms), when the run was accepted and it has one. */
      acceptedTtlMs?: number;
    };

const CLAIM_TTL_SECONDS = 60;

/*
 * KEYS: latest-run record, this run's accepted marker. ARGV: generation, runKey, issuance (1|0),
 * record JSON, claim TTL, retention TTL. One script, so two api replicas given events at once
 * cannot both decide that the same issuance starts a run.
 */
const CLAIM = `
local marker = redis.call('GET', KEYS[2])
local current = redis.call('GET', KEYS[1])
if marker then return {'duplicate', current or '', marker, redis.call('PTTL', KEYS[2])} end
if current then
  local rec = cjson.decode(current)
  local g = tonumber(rec.generation)
  local gen = tonumber(ARGV[1])
  if g > gen then return {'duplicate', current, ''} end
  if g == gen and rec.runKey ~= ARGV[2] then
    if ARGV[3] ~= '1' or tonumber(rec.runKey) > tonumber(ARGV[2]) then
      return {'duplicate', current, ''}
    end
  end
end
redis.call('SET', KEYS[2], 'claimed', 'EX', tonumber(ARGV[5]))
redis.call('SET', KEYS[1], ARGV[4], 'EX', tonumber(ARGV[6]))
return {'new', current or '', ''}
`;

/*
 * KEYS: record, marker, then the run's job keys. ARGV: record JSON, generation, runKey,
 * acceptedAt, retention TTL. A run whose jobs are not all in Redis is not confirmed (-1): BullMQ's
 * addBulk does not report a job script that failed inside its MULTI, so this is where that shows.
 */
const CONFIRM = `
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then return -1 end
end
redis.call('SET', KEYS[2], ARGV[4], 'EX', tonumber(ARGV[5]))
local current = redis.call('GET', KEYS[1])
if current then
  local rec = cjson.decode(current)
  local g = tonumber(rec.generation)
  local gen = tonumber(ARGV[2])
  if g > gen or (g == gen and tonumber(rec.runKey) > tonumber(ARGV[3])) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[5]))
return 1
`;

/* KEYS: record, marker. ARGV: our record JSON, the previous record JSON or ''. */
const RELEASE = `
if redis.call('GET', KEYS[2]) == 'claimed' then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
end
return 1
`;

function keys(prefix: string, run: Run): [string, string] {
  return [latestRunKey(prefix, run.uid), acceptedKey(prefix, run.uid, run.generation, run.runKey)];
}

type ClaimReply = [string, string, string, number?];

/** The scripts as ioredis commands: EVALSHA (the script text is sent once per connection). */
interface RunCommands {
  podBouncerClaimRun(...args: string[]): Promise<ClaimReply>;
  podBouncerConfirmRun(...args: string[]): Promise<number>;
  podBouncerReleaseRun(...args: string[]): Promise<number>;
}

type Commandable = Pick<Redis, 'defineCommand' | 'pipeline'>;

function commands<T extends Commandable>(redis: T): T & RunCommands {
  const client = redis as T & Partial<RunCommands>;
  if (client.podBouncerClaimRun === undefined) {
    redis.defineCommand('podBouncerClaimRun', { numberOfKeys: 2, lua: CLAIM });
    // The number of keys goes first: a run has one job per selector.
    redis.defineCommand('podBouncerConfirmRun', { lua: CONFIRM });
    redis.defineCommand('podBouncerReleaseRun', { numberOfKeys: 2, lua: RELEASE });
  }
  return client as T & RunCommands;
}

const parse = (json: string): Run | undefined =>
  json === '' ? undefined : (JSON.parse(json) as Run);

export interface ClaimRequest {
  run: Run;
  /** True for events that name an issuance (native, CloudEvent); false for object shapes. */
  issuance: boolean;
}

function claimArgs(prefix: string, { run, issuance }: ClaimRequest, retention: number): string[] {
  return [
    ...keys(prefix, run),
    String(run.generation),
    run.runKey,
    issuance ? '1' : '0',
    JSON.stringify(run),
    String(CLAIM_TTL_SECONDS),
    String(retention),
  ];
}

function claimOf([decision, current, marker, ttl]: ClaimReply): RunClaim {
  if (decision === 'new') return { decision, previous: parse(current) };
  const inProgress = marker === 'claimed';
  const accepted = marker !== '' && !inProgress && ttl !== undefined && ttl > 0;
  return {
    decision: 'duplicate',
    latest: parse(current),
    inProgress,
    ...(accepted ? { acceptedTtlMs: ttl } : {}),
  };
}

/** The replies of a pipeline, or its first error. */
async function replies<R>(pipeline: ReturnType<Redis['pipeline']>): Promise<R[]> {
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply as R;
  });
}

/**
 * Decides atomically whether `run` starts a new run (DESIGN §2 *Runs*): its marker exists, or
 * the latest run is of a newer generation, or of the same generation and (for events that name
 * an issuance) a later or equal `issuedAt` (for object shapes: any) → duplicate. Otherwise the
 * run's marker is claimed and the record points at it, so the older run's jobs stop at their
 * next check. Several claims go out in one pipeline, each still atomic and decided in order.
 */
export async function claimRuns(
  redis: Redis,
  prefix: string,
  requests: readonly ClaimRequest[],
  retentionSeconds: number,
): Promise<RunClaim[]> {
  const client = commands(redis);
  const pipeline = client.pipeline() as ReturnType<Redis['pipeline']> & RunCommands;
  for (const request of requests)
    void pipeline.podBouncerClaimRun(...claimArgs(prefix, request, retentionSeconds));
  return (await replies<ClaimReply>(pipeline)).map(claimOf);
}

/** One claim (see `claimRuns`). */
export async function claimRun(
  redis: Redis,
  prefix: string,
  run: Run,
  options: { issuance: boolean; retentionSeconds: number },
): Promise<RunClaim> {
  const reply = await commands(redis).podBouncerClaimRun(
    ...claimArgs(prefix, { run, issuance: options.issuance }, options.retentionSeconds),
  );
  return claimOf(reply);
}

/**
 * Marks runs accepted, each only if every job of it is in Redis; each becomes the latest unless a
 * newer one is. Answers, per run, whether it was confirmed.
 */
export async function confirmRuns(
  redis: Redis,
  prefix: string,
  runs: readonly Run[],
  retentionSeconds: number,
): Promise<boolean[]> {
  if (runs.length === 0) return [];
  const pipeline = commands(redis).pipeline() as ReturnType<Redis['pipeline']> & RunCommands;
  for (const run of runs) {
    const jobKeys = run.jobIds.map((id) => `${prefix}:${QUEUE_NAME}:${id}`);
    void pipeline.podBouncerConfirmRun(
      String(2 + jobKeys.length),
      ...keys(prefix, run),
      ...jobKeys,
      JSON.stringify(run),
      String(run.generation),
      run.runKey,
      run.acceptedAt,
      String(retentionSeconds),
    );
  }
  return (await replies<number>(pipeline)).map((reply) => reply !== -1);
}

/** Undoes a claim whose enqueue failed, so the sender's retry is handled afresh. */
export async function releaseRun(
  redis: Redis,
  prefix: string,
  run: Run,
  previous: Run | undefined,
): Promise<void> {
  const before = previous === undefined ? '' : JSON.stringify(previous);
  await commands(redis).podBouncerReleaseRun(...keys(prefix, run), JSON.stringify(run), before);
}
