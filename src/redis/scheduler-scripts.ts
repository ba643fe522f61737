/**
 * The Lua scripts of the shared scheduler (`redis-scheduler.ts`). Each runs
 * on one shard of the queue, `{jobs:K}`: its due set, its leased set and its
 * jobs' JSON, so on Redis Cluster each is one slot's script.
 */
import { type LuaScript, luaScript } from "./lua-script.ts";
import type { RedisClient } from "./redis-client.ts";

/**
 * KEYS: due, leased, data. ARGV: now, claim due up to (the lookahead's end),
 * lease until, batch. Moves jobs due by the lookahead's end and jobs whose
 * lease ended by now to the leased set. Returns the earliest time a job
 * still waits for (its due time or lease end; '' when none), then the JSON
 * of each job claimed.
 */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[4]))
for _, id in ipairs(due) do table.insert(ids, id) end
local claimed = {''}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[1], id)
  if data then
    redis.call('ZADD', KEYS[2], ARGV[3], id)
    table.insert(claimed, data)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
local nextLease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
if nextDue and nextLease then
  claimed[1] = tonumber(nextDue) < tonumber(nextLease) and nextDue or nextLease
else
  claimed[1] = nextDue or nextLease or ''
end
return claimed
`;

/** KEYS: leased, data. ARGV: id, the JSON it was claimed with. Done: forgets it, unless scheduled again meanwhile. */
const COMPLETE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
`;

/**
 * KEYS: due, leased, data. ARGV: (id, the JSON it was claimed with, due at)
 * for each job. Hands jobs claimed ahead back to the due set, unless one was
 * scheduled again (or cancelled) meanwhile.
 */
const RELEASE = `
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[2], id) and redis.call('HGET', KEYS[3], id) == ARGV[i + 1] then
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[1], ARGV[i + 2], id)
  end
end
return 1
`;

/**
 * KEYS: due, leased, data. ARGV: id, JSON, due at, '1' if absent only.
 * Scheduling under a live id (waiting or leased) replaces that job, or with
 * the last argument leaves it. Returns 1 when scheduled.
 */
const SCHEDULE = `
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`;

export interface SchedulerScripts {
  readonly claim: LuaScript;
  readonly complete: LuaScript;
  readonly release: LuaScript;
  readonly schedule: LuaScript;
}

export function schedulerScripts(redis: RedisClient): SchedulerScripts {
  return {
    claim: luaScript(redis, CLAIM, 3),
    complete: luaScript(redis, COMPLETE, 2),
    release: luaScript(redis, RELEASE, 3),
    schedule: luaScript(redis, SCHEDULE, 3),
  };
}
