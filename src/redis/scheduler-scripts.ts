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
 *
 * Each set is read once, its first batch + 1 entries with their scores:
 * those in time are claimed, and the first one left is the set's next time,
 * so an idle shard costs two reads. The claimed jobs are read, unqueued and
 * leased with one command each, whatever their number.
 */
const CLAIM = `
local batch = tonumber(ARGV[4])
local function take(key, upTo)
  local found = redis.call('ZRANGE', key, 0, batch, 'WITHSCORES')
  local ids = {}
  for i = 1, #found, 2 do
    if #ids == batch or tonumber(found[i + 1]) > upTo then return ids, found[i + 1] end
    table.insert(ids, found[i])
  end
  return ids, nil
end
local ended, nextLease = take(KEYS[2], tonumber(ARGV[1]))
local due, nextDue = take(KEYS[1], tonumber(ARGV[2]))
local claimed = {''}
local ids = {}
for _, id in ipairs(ended) do table.insert(ids, id) end
for _, id in ipairs(due) do table.insert(ids, id) end
if #ids > 0 then
  local data = redis.call('HMGET', KEYS[3], unpack(ids))
  if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
  local leases, gone = {}, {}
  for i, id in ipairs(ids) do
    if data[i] then
      table.insert(leases, ARGV[3])
      table.insert(leases, id)
      table.insert(claimed, data[i])
    else
      table.insert(gone, id)
    end
  end
  if #leases > 0 then
    redis.call('ZADD', KEYS[2], unpack(leases))
    if not nextLease or tonumber(ARGV[3]) < tonumber(nextLease) then nextLease = ARGV[3] end
  end
  if #gone > 0 then redis.call('ZREM', KEYS[2], unpack(gone)) end
end
if nextDue and nextLease then
  claimed[1] = tonumber(nextDue) < tonumber(nextLease) and nextDue or nextLease
else
  claimed[1] = nextDue or nextLease or ''
end
return claimed
`;

/**
 * KEYS: leased, data. ARGV: id, the JSON it was claimed with. Done: forgets
 * it, unless scheduled again meanwhile. A job scheduled again left the
 * leased set then, so a lease it has now is a later claim's (the job put
 * itself off and another process took it up): that lease is kept, or a
 * claimant killed before running it would leave the job neither due nor
 * leased, never run again.
 */
const COMPLETE = `
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
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
 * the last argument leaves it. Returns 1 when scheduled. A new id costs two
 * writes: only an id whose JSON was already there can be leased (a claim
 * leases only jobs with their JSON, and every removal takes both).
 */
const SCHEDULE = `
if ARGV[4] == '1' then
  if redis.call('HSETNX', KEYS[3], ARGV[1], ARGV[2]) == 0 then return 0 end
elseif redis.call('HSET', KEYS[3], ARGV[1], ARGV[2]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`;

/**
 * KEYS: due, leased, data. ARGV: type. When the earliest job of the type not
 * yet done is due ('' when none): the first one in the due set, read in
 * chunks in due order, and any leased one (claimed ahead of its due time, or
 * running), whose due time is in its JSON since its score is the lease's end.
 */
const NEXT_DUE_OF_TYPE = `
local chunk = 200
local function earliest(key, stopAtFirst)
  local found = nil
  local start = 0
  while true do
    local ids = redis.call('ZRANGE', key, start, start + chunk - 1)
    if #ids == 0 then return found end
    local data = redis.call('HMGET', KEYS[3], unpack(ids))
    for i = 1, #ids do
      if data[i] then
        local job = cjson.decode(data[i])
        if job.type == ARGV[1] and (not found or job.dueAt < found) then
          found = job.dueAt
          if stopAtFirst then return found end
        end
      end
    end
    start = start + chunk
  end
end
local due = earliest(KEYS[1], true)
local leased = earliest(KEYS[2], false)
if due and leased then due = math.min(due, leased) else due = due or leased end
if not due then return '' end
return string.format('%.0f', due)
`;

export interface SchedulerScripts {
  readonly claim: LuaScript;
  readonly complete: LuaScript;
  readonly release: LuaScript;
  readonly schedule: LuaScript;
  readonly nextDueOfType: LuaScript;
}

export function schedulerScripts(redis: RedisClient): SchedulerScripts {
  return {
    claim: luaScript(redis, CLAIM, 3),
    complete: luaScript(redis, COMPLETE, 2),
    release: luaScript(redis, RELEASE, 3),
    schedule: luaScript(redis, SCHEDULE, 3),
    nextDueOfType: luaScript(redis, NEXT_DUE_OF_TYPE, 3),
  };
}
