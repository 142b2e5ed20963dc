import type { Redis } from 'ioredis';

/** A Lua script as ioredis defines it; without `numberOfKeys` the caller passes the count first. */
export interface LuaCommand {
  numberOfKeys?: number;
  lua: string;
}

/**
 * `redis` with the given scripts defined on it, once per client: ioredis sends each by its SHA
 * (EVALSHA) and loads it again after a Redis restart. `C` names the methods the scripts become.
 */
export function withLuaCommands<C>(
  redis: Redis,
  commands: Record<keyof C & string, LuaCommand>,
): Redis & C {
  const client = redis as Redis & Record<string, unknown>;
  for (const [name, command] of Object.entries<LuaCommand>(commands)) {
    if (client[name] === undefined) redis.defineCommand(name, command);
  }
  return redis as Redis & C;
}
