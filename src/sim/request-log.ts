// Every request the simulator answered, failed and watch ones included.
import type { RequestLogEntry } from './types.js';

export class RequestLog {
  private entries: RequestLogEntry[] = [];

  record(entry: RequestLogEntry): void {
    this.entries.push(entry);
  }

  all(): RequestLogEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  reset(): void {
    this.entries = [];
  }
}
