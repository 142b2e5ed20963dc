// Figures of another process read from /proc (Linux).
import { readFileSync } from 'node:fs';
import { round } from './stats.js';

/** CPU time (user + system) a process has used so far, in ms (10 ms ticks). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Peak resident set (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024, 1);
}
