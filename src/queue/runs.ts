import type { Redis } from 'ioredis';
import { QUEUE_NAME } from './names.js';

/** The latest run of a directive, as ingest records it when the run is accepted. */
export interface RunRecord {
  uid: string;
  generation: number;
  /** The run's issuedAt as epoch milliseconds in decimal, or "0" without one. */
  runKey: string;
  issuedAt?: string;
  /** The selector jobs' ids, in selector order. */
  jobIds: string[];
  acceptedAt: string;
}

export function latestRunKey(prefix: string, uid: string): string {
  return `${prefix}:${QUEUE_NAME}:run:${uid}`;
}

/** The latest run of the directive `uid`, or undefined when none was recorded. */
export async function latestRun(
  redis: Redis,
  prefix: string,
  uid: string,
): Promise<RunRecord | undefined> {
  const stored = await redis.get(latestRunKey(prefix, uid));
  if (stored === null) return undefined;
  try {
    return JSON.parse(stored) as RunRecord;
  } catch {
    return undefined;
  }
}
