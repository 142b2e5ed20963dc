/**
 * The demo's one clock: every stamped line says how long after the demo's start it happened, so
 * progress lines, job log lines and warnings read on one scale.
 */
export class DemoClock {
  constructor(private readonly startedAt = Date.now()) {}

  /** `[+  1.6s]` for a moment in epoch milliseconds (default now). */
  stamp(at = Date.now()): string {
    const seconds = Math.max(0, (at - this.startedAt) / 1000);
    return `[+${seconds.toFixed(1).padStart(5)}s]`;
  }
}
