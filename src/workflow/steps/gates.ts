/**
 * What must hold just before a batch is sent, after its replacements wait (DESIGN §4): the soak
 * after the previous batch, then every gate of the directive and of the installation. Each is a
 * wait that holds no worker slot.
 */

import { describeGate, needsPrometheus } from '../../gates/types.js';
import type { PendingWait, StepContext } from '../context.js';
import { countsOf } from './waits.js';

/** The selector's soak: its own soakSeconds, else DEFAULT_SOAK_SECONDS. */
function soakSecondsOf(context: StepContext): number {
  return context.data.selector.soakSeconds ?? context.deps.settings.defaultSoakSeconds ?? 0;
}

/**
 * The soak after the batch that brought the bounced pods to their count now, once per batch:
 * undefined when there is none to do (no batch yet, no soak, or this one's is over).
 */
export async function soakWait(
  context: StepContext,
  bounced: Set<string>,
): Promise<PendingWait | undefined> {
  const seconds = soakSecondsOf(context);
  const after = bounced.size;
  if (seconds === 0 || after === 0 || context.progress.soakedAfter === after) return undefined;
  const now = Date.now();
  const soak = context.progress.soak?.after === after ? context.progress.soak : { after, at: now };
  if (context.progress.soak !== soak) await context.save({ soak });
  const left = Math.ceil((soak.at + seconds * 1000 - now) / 1000);
  if (left <= 0) {
    context.stage({ soak: undefined, soakedAfter: after });
    context.note(`soaked ${seconds} s after ${after} pod(s) bounced`);
    return undefined;
  }
  return {
    what: `the soak of ${seconds} s to end (${left} s left)`,
    status: `soak (${left} s left)`,
    counts: countsOf(context, bounced),
    timeoutSeconds: undefined,
    clock: 'soak',
    recheckMs: Math.min(left * 1000, Math.max(1000, context.deps.settings.pollIntervalMs)),
  };
}

/** The first closed gate as a wait, or undefined when every gate that applies is open. */
export async function gateWait(
  context: StepContext,
  bounced: Set<string>,
): Promise<PendingWait | undefined> {
  const { settings, gates: judge } = context.deps;
  const gates = [...(settings.installationGates ?? []), ...(context.directive.spec.gates ?? [])];
  if (gates.length === 0 || judge === undefined) return undefined;
  const verdict = await judge.judge(gates);
  if (verdict.open) return undefined;
  const timeout = needsPrometheus(verdict.gate) ? settings.gateTimeoutSeconds : undefined;
  const name = describeGate(verdict.gate);
  return {
    what: `gate ${name} to open (${verdict.why})`,
    gate: { name, why: verdict.why },
    counts: countsOf(context, bounced),
    // Windows never time out; alerts and query gates fail the run after GATE_TIMEOUT_SECONDS.
    timeoutSeconds: timeout,
    ...(timeout === undefined
      ? {}
      : { timeoutMessage: `gate ${name} closed for ${timeout} s: ${verdict.why}` }),
    clock: `gate ${name}`,
    recheckMs: (settings.gateIntervalSeconds ?? 30) * 1000,
  };
}
