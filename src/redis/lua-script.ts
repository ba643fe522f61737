/**
 * A Lua script called by its SHA1 (`EVALSHA`), its body sent only when Redis
 * lacks it (after a restart or `SCRIPT FLUSH`): a script of a few hundred
 * bytes is then neither sent nor hashed by Redis on every call. This is
 * ioredis's `defineCommand`, under a name taken from the script's digest, so
 * one client can hold any number of scripts and defining one twice is free.
 */
import { createHash } from "node:crypto";
import { assertOneSlot } from "./key-slot.ts";
import type { RedisClient } from "./redis-client.ts";

export type LuaScript = (...args: (string | number)[]) => Promise<unknown>;

/**
 * @example
 * const complete = luaScript(redis, "return redis.call('HDEL', KEYS[1], ARGV[1])", 1);
 * await complete("ah:{jobs}:data", "job_1");
 */
export function luaScript(redis: RedisClient, lua: string, numberOfKeys: number): LuaScript {
  const name = `ahLua${createHash("sha1").update(lua).digest("hex").slice(0, 16)}`;
  if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua });
  const command = (redis as unknown as Record<string, LuaScript>)[name] as LuaScript;
  return (...args) => {
    // Redis Cluster runs a script on one slot's node: a script whose keys span slots would be refused there.
    assertOneSlot(`script ${name}`, args.slice(0, numberOfKeys).map(String));
    return command.apply(redis, args);
  };
}
