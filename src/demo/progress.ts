import type { Queue } from 'bullmq';
import { gateChange, type ReadyCondition } from '../status/gate-change.js';
import type { Directive } from '../directive/types.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { DemoClock } from './clock.js';

export type Print = (line: string) => void;

/** A job log entry may hold several lines, each stamped `[<ISO time>] step: message`. */
const LOG_STAMP = /^\[([^\]]+)\]\s*/;

/**
 * Follows a directive the way an operator would with `kubectl get pbd -w` and the dashboard:
 * status transitions and every job log line, each on the demo's clock.
 */
export class ProgressPrinter {
  private readonly seenLines = new Map<string, number>();
  private lastState = '';
  private lastMessage = '';
  private lastReady: ReadyCondition | undefined;

  constructor(
    private readonly kube: KubeGateway,
    private readonly queue: Queue,
    private readonly print: Print,
    private readonly clock: DemoClock,
  ) {}

  /** Prints what changed since the last call and returns the directive as now read. */
  async poll(ref: { namespace: string; name: string }, jobIds: string[]): Promise<Directive> {
    const directive = await this.kube.getDirective(ref);
    for (const [index, jobId] of jobIds.entries()) await this.printJobLogs(index, jobId);
    const state = directive.status?.state ?? '';
    if (state !== this.lastState) {
      this.lastState = state;
      const error = directive.status?.error ? ` (${directive.status.error})` : '';
      this.print(
        `${this.clock.stamp()} directive ${ref.namespace}/${ref.name} is ${state}${error}`,
      );
    }
    this.printReady(directive.status?.conditions?.find((condition) => condition.type === 'Ready'));
    return directive;
  }

  /** What `kubectl get pbd` shows in its READY and MESSAGE columns, as it changes (batches too). */
  private printReady(
    ready: { status: string; reason?: string; message?: string } | undefined,
  ): void {
    const message =
      ready === undefined ? '' : `Ready=${ready.status} ${ready.reason}: ${ready.message}`;
    if (message !== '' && message !== this.lastMessage) {
      this.lastMessage = message;
      this.print(`${this.clock.stamp()} ${message}`);
    }
    // As `status --watch` does: a line when a gate holds the run and when it goes on again.
    const change = gateChange(this.lastReady, ready);
    if (change !== undefined) this.print(`${this.clock.stamp()} ${change}`);
    this.lastReady = ready;
  }

  private async printJobLogs(index: number, jobId: string): Promise<void> {
    const seen = this.seenLines.get(jobId) ?? 0;
    const { logs } = await this.queue.getJobLogs(jobId, seen, -1);
    for (const line of logs.flatMap((entry) => entry.split('\n'))) {
      const at = LOG_STAMP.exec(line)?.[1];
      const when = at === undefined ? Number.NaN : Date.parse(at);
      const text = line.replace(LOG_STAMP, '');
      this.print(
        `${this.clock.stamp(Number.isNaN(when) ? undefined : when)} selector ${index}  ${text}`,
      );
    }
    this.seenLines.set(jobId, seen + logs.length);
  }
}
