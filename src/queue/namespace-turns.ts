import type { Redis } from 'ioredis';
import { withLuaCommands } from './lua-commands.js';
import { QUEUE_NAME, turnsKey } from './names.js';

/*
 * Worker slots taken in turn by directive namespace (ADR 0026). BullMQ takes its plain wait list
 * in the order jobs were queued, then its prioritized jobs by priority and, within one, in that
 * order: so every selector job is queued with a priority of 1 or more (0 would put it in the plain
 * list, ahead of them all), its turn among its namespace's jobs queued lately. The k-th job a
 * namespace queues within the window takes turn k: a quiet namespace's job goes before those of
 * a namespace with hundreds queued, and a namespace alone still has every slot (a priority only
 * orders what is queued, it holds nothing back). A job takes its turn each time it is queued to
 * run: added (in the run's claim), parked as delayed (its priority is read when it is promoted),
 * released by the selector before it in a chain (read when BullMQ moves it to the queue).
 *
 * The count is per window of TURN_WINDOW_MS, the one before weighed by how much of it still falls
 * within the last TURN_WINDOW_MS: a sliding window, on Redis' clock, that forgets a crashed
 * worker's jobs as it forgets everything else. Past LAST_TURN a namespace's jobs keep queue
 * order: a job queued long ago at the last turn lets at most LAST_TURN - 1 of each other
 * namespace's jobs go first per window, never an endless run of fresh turns.
 */

/** How long a job queued counts against its namespace's turns (ms). */
export const TURN_WINDOW_MS = 5000;

/** The latest turn: a namespace with more jobs queued in the window keeps their queue order. */
export const LAST_TURN = 64;

/**
 * `takeTurns(key, count)`: `count` jobs of the namespace whose turns key this is are queued now;
 * answers the first one's turn (each next one's is one later, up to LAST_TURN). On Redis' clock.
 */
export const LUA_TURNS = `
local function takeTurns(key, count)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local window = math.floor(now / ${TURN_WINDOW_MS})
  local counts = redis.call('HMGET', key, window - 1, window)
  local stillIn = 1 - (now % ${TURN_WINDOW_MS}) / ${TURN_WINDOW_MS}
  local taken = math.floor((tonumber(counts[1]) or 0) * stillIn + (tonumber(counts[2]) or 0) + 0.5)
  redis.call('HINCRBY', key, window, count)
  redis.call('HDEL', key, window - 2)
  redis.call('PEXPIRE', key, ${2 * TURN_WINDOW_MS})
  return math.min(${LAST_TURN}, taken + 1)
end
`;

/*
 * KEYS: the namespace's turns key, then job keys. Each job still there gets its turn as its
 * priority, which BullMQ reads when it next queues the job; answers the first turn.
 */
const TAKE = `${LUA_TURNS}
local first = takeTurns(KEYS[1], #KEYS - 1)
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('HSET', KEYS[i], 'priority', math.min(${LAST_TURN}, first + i - 2))
  end
end
return first
`;

/** The turn of the job `index` places after the first of a batch that took `first`. */
export function turnAfter(first: number, index: number): number {
  return Math.min(LAST_TURN, Math.max(1, first) + index);
}

interface TurnCommands {
  podBouncerTakeTurns(...args: string[]): Promise<number>;
}

/**
 * The turns of the worker's jobs, taken when a job is parked or released: one script call of a few
 * commands per job queued, sent with the write that queues it (no round trip of its own), and a
 * hash of two or three counts per namespace that queued a job in the last two windows.
 */
export class NamespaceTurns {
  private readonly redis: Redis & TurnCommands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.redis = withLuaCommands<TurnCommands>(redis, { podBouncerTakeTurns: { lua: TAKE } });
  }

  /**
   * The jobs take their turns in `namespace` (a directive's) in this order, each as its priority
   * the next time BullMQ queues it. A job no longer in Redis is skipped.
   */
  async take(namespace: string, jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    const keys = [
      turnsKey(this.prefix, namespace),
      ...jobIds.map((id) => `${this.prefix}:${QUEUE_NAME}:${id}`),
    ];
    await this.redis.podBouncerTakeTurns(String(keys.length), ...keys);
  }
}
