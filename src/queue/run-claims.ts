import type { Redis } from 'ioredis';
import { runBudgetKey, turnsKey, type DirectiveName } from './names.js';
import { runBudgetMember } from './run-identity.js';
import { runCommands, type ClaimReply } from './run-scripts.js';
import { runRecordKeys, type Run } from './runs.js';

/**
 * The claim of a run (DESIGN §2 *Runs*): whether an event starts a new run of its directive or
 * repeats one already claimed, within the directive's budget of runs per hour.
 */

/** A claim's answer: a new run (the caller enqueues it), or an earlier one that already covers it. */
export type RunClaim =
  /** `turn`: the priority of its first job queued, its turn in its namespace (`namespace-turns.ts`). */
  | { decision: 'new'; previous: Run | undefined; turn: number }
  /** A new run past MAX_RUNS_PER_HOUR: nothing claimed; one more is allowed in `retryAfterMs`. */
  | { decision: 'too_many'; retryAfterMs: number }
  | {
      decision: 'duplicate';
      latest: Run | undefined;
      inProgress: boolean;
      /**
       * The runKey of the run whose marker answered, when it is not the event's own: the event's
       * `issuedAt` as sent was ahead of the clock when that run began (see `Run.sentKey`).
       */
      runKey?: string;
      /** The accepted marker's remaining lifetime (ms), when the run was accepted and it has one. */
      acceptedTtlMs?: number;
    };

const CLAIM_TTL_SECONDS = 60;

const parse = (json: string): Run | undefined =>
  json === '' ? undefined : (JSON.parse(json) as Run);

export interface ClaimRequest {
  run: Run;
  /** The directive by name: its budget (MAX_RUNS_PER_HOUR) is kept by name, not by uid. */
  directive: DirectiveName;
  /** True for events that name an issuance (native, CloudEvent); false for object shapes. */
  issuance: boolean;
  /** The jobs a new run queues at once, each taking a turn in its directive's namespace (1). */
  queued?: number;
}

/** How many runs a directive may start in any hour (MAX_RUNS_PER_HOUR), and the time now. */
export interface RunBudget {
  perHour: number;
  now?: number;
}

/**
 * The ms until `directive` may start one more run, or undefined while it may: the claim's own
 * budget rule (`claimRuns`), read without claiming, for a caller that must know before it writes.
 */
export async function runBudgetWait(
  redis: Redis,
  prefix: string,
  directive: DirectiveName,
  budget: RunBudget,
): Promise<number | undefined> {
  const now = String(budget.now ?? Date.now());
  const key = runBudgetKey(prefix, directive);
  const wait = await runCommands(redis).podBouncerBudgetWait(key, now, String(budget.perHour));
  return wait < 0 ? undefined : Math.max(0, wait);
}

/** The claim script's arguments for a batch: the keys of every run, then its own values. */
function claimArgs(
  prefix: string,
  requests: readonly ClaimRequest[],
  retention: number,
  budget: RunBudget,
): string[] {
  const keyArgs: string[] = [];
  const valueArgs = [
    String(CLAIM_TTL_SECONDS),
    String(retention),
    String(budget.now ?? Date.now()),
    String(budget.perHour),
  ];
  for (const { run, issuance, directive, queued } of requests) {
    const turns = turnsKey(prefix, directive.namespace);
    keyArgs.push(...runRecordKeys(prefix, run), runBudgetKey(prefix, directive), turns);
    valueArgs.push(
      String(run.generation),
      run.runKey,
      issuance ? '1' : '0',
      JSON.stringify(run),
      runBudgetMember(run),
      String(queued ?? 1),
    );
  }
  return [String(keyArgs.length), ...keyArgs, ...valueArgs];
}

function claimOf(
  [decision, current, marker, ttl, runKey]: ClaimReply,
  request: ClaimRequest,
): RunClaim {
  if (decision === 'new') return { decision, previous: parse(current), turn: Number(ttl ?? 1) };
  if (decision === 'too_many') return { decision, retryAfterMs: Math.max(0, Number(ttl ?? 0)) };
  const inProgress = marker === 'claimed';
  const accepted = marker !== '' && !inProgress && ttl !== undefined && ttl > 0;
  return {
    decision: 'duplicate',
    latest: parse(current),
    inProgress,
    ...(accepted ? { acceptedTtlMs: ttl } : {}),
    ...(runKey === undefined || runKey === request.run.runKey ? {} : { runKey }),
  };
}

/**
 * Decides atomically whether `run` starts a new run (DESIGN §2 *Runs*): its marker exists (or
 * the marker of the run that an event with the same `issuedAt` as sent started), or the latest
 * run is of a newer generation, or of the same generation and (for events that name
 * an issuance) a later or equal `issuedAt` (for object shapes: any) → duplicate. Otherwise the
 * run's marker is claimed and the record points at it, so the older run's jobs stop at their
 * next check. A batch of claims is one script call: decided in order (a later run of the batch
 * sees what an earlier one claimed), all at once, atomically. A new run past the directive's
 * budget (MAX_RUNS_PER_HOUR in any hour) is `too_many` and claims nothing.
 */
export async function claimRuns(
  redis: Redis,
  prefix: string,
  requests: readonly ClaimRequest[],
  limits: { retentionSeconds: number; budget?: RunBudget },
): Promise<RunClaim[]> {
  if (requests.length === 0) return [];
  const budget = limits.budget ?? { perHour: Number.MAX_SAFE_INTEGER };
  const args = claimArgs(prefix, requests, limits.retentionSeconds, budget);
  const replies = await runCommands(redis).podBouncerClaimRuns(...args);
  return replies.map((reply, index) => claimOf(reply, requests[index]!));
}

/** One claim (see `claimRuns`). */
export async function claimRun(
  redis: Redis,
  prefix: string,
  run: Run,
  options: { directive: DirectiveName; issuance: boolean; retentionSeconds: number },
): Promise<RunClaim> {
  const { directive, issuance } = options;
  const [claim] = await claimRuns(redis, prefix, [{ run, directive, issuance }], {
    retentionSeconds: options.retentionSeconds,
  });
  return claim!;
}
