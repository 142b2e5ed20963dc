import type { DirectiveMetadata, DirectiveStatus } from '../directive/types.js';

// What a run is (DESIGN §2 *Runs*, ADR 0003): one pass over a directive's selectors for one
// (uid, generation, issuedAt). This module is the one place that says how a run is named, how two
// runs are ordered and when a status describes one; the Lua scripts (runs, bounce lease) take
// their ordering from `LUA_RUN_ORDER` here, and test/unit/run-identity.test.ts holds both orderings
// to each other.

/** A run's identity: its directive's uid, the generation, and its issuance as a runKey. */
export interface RunId {
  uid: string;
  generation: number;
  /** `issuedAt` as epoch milliseconds in decimal, or "0" when the run has none. */
  runKey: string;
}

/** A run's identity as a status tells it: the generation, and the issuance when it has one. */
export interface StatusRun {
  generation: number;
  issuedAt?: string | undefined;
}

/** A run's key: its `issuedAt` as epoch milliseconds in decimal, or "0" when it has none. */
export function runKeyOf(issuedAt: Date | string | undefined): string {
  if (issuedAt === undefined) return '0';
  return String(new Date(issuedAt).getTime());
}

/**
 * The run as job ids, abort keys and slot keys tag it: `<uid>.g<generation>.r<runKey>`. Colon
 * free, so that it fits a BullMQ job id.
 */
export function runTag(run: RunId): string {
  return `${run.uid}.g${run.generation}.r${run.runKey}`;
}

/**
 * The member of a directive's hourly run budget (a sorted set) that stands for this run: with the
 * uid, since the budget is by name and a re-created directive's runs start again at generation 1.
 */
export function runBudgetMember(run: RunId): string {
  return `${run.uid}:${run.generation}:${run.runKey}`;
}

/**
 * The one order of a directive's runs: by generation, then by issuance (runKey as a number).
 * Negative when `a` comes before `b`, 0 when they are the same run, positive when after.
 */
export function compareRuns(
  a: Pick<RunId, 'generation' | 'runKey'>,
  b: Pick<RunId, 'generation' | 'runKey'>,
): number {
  return a.generation - b.generation || Math.sign(Number(a.runKey) - Number(b.runKey));
}

/** Whether `a` is a later run than `b`. */
export function isLaterRun(
  a: Pick<RunId, 'generation' | 'runKey'>,
  b: Pick<RunId, 'generation' | 'runKey'>,
): boolean {
  return compareRuns(a, b) > 0;
}

/** Whether two identities name the same run of a directive. */
export function isSameRun(
  a: Pick<RunId, 'generation' | 'runKey'>,
  b: Pick<RunId, 'generation' | 'runKey'>,
): boolean {
  return a.generation === b.generation && a.runKey === b.runKey;
}

/**
 * Whether a directive as read is the one `run` is of: one deleted and re-created under its name
 * has another uid.
 */
export function isRunsDirective(
  directive: { metadata: Pick<DirectiveMetadata, 'uid'> },
  run: Pick<RunId, 'uid'>,
): boolean {
  return directive.metadata.uid === run.uid;
}

/** Whether a directive as read still holds `run`'s spec: the run's directive, at its generation. */
export function holdsRunsSpec(
  directive: { metadata: Pick<DirectiveMetadata, 'uid' | 'generation'> },
  run: Pick<RunId, 'uid' | 'generation'>,
): boolean {
  return isRunsDirective(directive, run) && directive.metadata.generation === run.generation;
}

/**
 * The order of runs in Lua, for the run scripts and the bounce lease: `later` is `isLaterRun` and
 * `sameRun` is `isSameRun` for the runs (g1, k1) and (g2, k2); generations are numbers (or their
 * decimal strings), runKeys decimal strings (Lua numbers are doubles: epoch ms is exact).
 * `acceptedLater` orders runs of different uids (a directive deleted and re-created under its
 * name) by their acceptance (`Run.acceptedAt`, epoch ms): whether at1 came after at2.
 */
export const LUA_RUN_ORDER = `
local function later(g1, k1, g2, k2)
  return tonumber(g1) > tonumber(g2) or (tonumber(g1) == tonumber(g2) and tonumber(k1) > tonumber(k2))
end
local function sameRun(g1, k1, g2, k2)
  return tonumber(g1) == tonumber(g2) and k1 == k2
end
local function acceptedLater(at1, at2)
  return tonumber(at1) > tonumber(at2)
end
`;

/**
 * The moment a run stands for: its `issuedAt`, or when it was accepted (`Run.acceptedAt`, which
 * every job of the run carries). The same on every re-run of a job (rollout's restartedAt).
 */
export function runMoment(run: { issuedAt?: string | undefined; acceptedAt: string }): string {
  return run.issuedAt ?? run.acceptedAt;
}

/**
 * Whether a status already tells `run`: the same generation and, when the run names an issuance,
 * the same one (a run without one is any issuance's of its generation).
 */
export function describesRun(status: DirectiveStatus | undefined, run: StatusRun): boolean {
  if (status === undefined || status.observedGeneration !== run.generation) return false;
  return run.issuedAt === undefined || (status.issuedAt ?? undefined) === run.issuedAt;
}

/**
 * The runKey of the issuance a status tells, or undefined when it tells none it can be ordered by:
 * `issuedAt` absent, or no instant (unreadable). Such a status comes before every issued run.
 */
export function toldRunKey(status: Pick<DirectiveStatus, 'issuedAt'>): string | undefined {
  if (typeof status.issuedAt !== 'string') return undefined;
  const runKey = runKeyOf(status.issuedAt);
  return Number.isFinite(Number(runKey)) ? runKey : undefined;
}

/** Whether two statuses tell the same run: the same generation and the same issuance (or none). */
export function tellSameRun(a: DirectiveStatus, b: DirectiveStatus): boolean {
  return (
    a.observedGeneration === b.observedGeneration &&
    (a.issuedAt ?? undefined) === (b.issuedAt ?? undefined)
  );
}
