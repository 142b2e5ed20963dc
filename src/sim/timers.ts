/**
 * Every delayed action of the simulator goes through here, so that close() can clear them all and
 * no timer keeps a test process alive (they are unref'd as well).
 */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private readonly sleepers = new Set<() => void>();
  private closed = false;

  after(delayMs: number, action: () => void): NodeJS.Timeout | undefined {
    if (this.closed) return undefined;
    const handle = setTimeout(
      () => {
        this.pending.delete(handle);
        if (!this.closed) action();
      },
      Math.max(0, delayMs),
    );
    handle.unref();
    this.pending.add(handle);
    return handle;
  }

  /** Resolves after delayMs, or at once when the simulator closes. */
  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.sleepers.delete(wake);
        resolve();
      };
      this.sleepers.add(wake);
      if (!this.after(delayMs, wake)) wake();
    });
  }

  /** Runs action once the current I/O callbacks are done (setImmediate), unless closed first. */
  soon(action: () => void): void {
    if (this.closed) return;
    setImmediate(() => {
      if (!this.closed) action();
    }).unref();
  }

  cancel(handle: NodeJS.Timeout | undefined): void {
    if (!handle) return;
    clearTimeout(handle);
    this.pending.delete(handle);
  }

  clear(): void {
    this.closed = true;
    for (const handle of this.pending) clearTimeout(handle);
    this.pending.clear();
    for (const wake of [...this.sleepers]) wake();
  }
}
