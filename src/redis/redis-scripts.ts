/**
 * The Lua scripts behind the Redis store's atomic steps. Redis runs a script
 * alone, so each check and its write happen with nothing in between: the
 * atomicity the Store port promises, without locks. Each script touches the
 * keys of one customer's hash slot only; the indexes across customers have
 * their scripts beside them (`order-index.ts`, `issued-tokens.ts`).
 */

/**
 * Sets a wallet's balance, adding the wallet when absent. KEYS: customer
 * (its record and its wallets' fields). ARGV: shortcode field, cents, currency ('' keeps it, KES for a new
 * wallet). Returns {kind, balance, currency, added}. Debits and refunds are
 * steps of their own scripts (placing an order, a compare-and-set with a
 * refund), never a wallet change alone.
 */
const WALLET = `
local field = 'b:' .. ARGV[1]
local currencyField = 'c:' .. ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'record') == 0 then return {'unknown_customer'} end
local stored = redis.call('HGET', KEYS[1], field)
redis.call('HSET', KEYS[1], field, ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], currencyField, ARGV[3])
elseif not stored then redis.call('HSET', KEYS[1], currencyField, 'KES') end
return {'set', tonumber(ARGV[2]), redis.call('HGET', KEYS[1], currencyField), stored and 0 or 1}
`;

/**
 * Compare-and-set of an order on its version. KEYS: book, customer. ARGV:
 * id, order JSON, expected version, then, for a refund, the wallet field
 * and the cents to credit back (in the same step, so no kill between the
 * two can lose the refund; a wallet gone meanwhile is left alone). The
 * version is the stored order's history length. Returns 1 when stored.
 */
const UPDATE_ORDER = `
local field = 'o:' .. ARGV[1]
local stored = redis.call('HGET', KEYS[1], field)
if not stored or #cjson.decode(stored).history ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], field, ARGV[2])
if ARGV[4] and redis.call('HEXISTS', KEYS[2], 'b:' .. ARGV[4]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'b:' .. ARGV[4], tonumber(ARGV[5]))
end
return 1
`;

/**
 * Removes an order still at the expected version. KEYS: book,
 * orderSequence, evicted, evictedUntil. ARGV: id, expected version, keep
 * until, now, reference, evicted record JSON. Returns 1 when removed.
 */
const EVICT_ORDER = `
local field = 'o:' .. ARGV[1]
local stored = redis.call('HGET', KEYS[1], field)
if not stored or #cjson.decode(stored).history ~= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], field)
redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(ARGV[3]) > tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[6])
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
elseif redis.call('HGET', KEYS[1], 'r:' .. ARGV[5]) == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'r:' .. ARGV[5])
end
return 1
`;

/**
 * The whole placement of an order. KEYS: customer, book, orderSequence,
 * evicted, evictedUntil, idempotencyExpiry. ARGV: wallet
 * field, cents, reference, id, order JSON, now, idempotency key ('' for
 * none), key record JSON, key expiry. Returns {'placed'}, {'existing',
 * record JSON}, {'duplicate'}, {'insufficient', balance, currency} or
 * {'unknown_wallet'}.
 *
 * The key, the reference and the customer's order counter are read with
 * one HMGET of the book, and the order, its reference, its key and the
 * counter written with one HSET. A wallet's
 * fields exist only beside the customer's record (written in one MULTI,
 * never removed apart), so the wallet's read answers for both. Expired keys are swept on
 * one placement in 16 of the customer's (by its sequence), up to 32 at a
 * time: twice the rate keys are added, at one read every 16 orders instead
 * of one every order. A key past its expiry is never answered, swept or not.
 */
const PLACE_ORDER = `
local now = tonumber(ARGV[6])
local keyField, referenceField, orderField = 'k:' .. ARGV[7], 'r:' .. ARGV[3], 'o:' .. ARGV[4]
local found = redis.call('HMGET', KEYS[2], keyField, referenceField, 'n')
local current, holder = found[1], found[2]
if ARGV[7] ~= '' and current and tonumber(cjson.decode(current).expiresAt) > now then
  return {'existing', current}
end
if holder then
  if redis.call('HEXISTS', KEYS[2], 'o:' .. holder) == 1 then return {'duplicate'} end
  local kept = redis.call('HGET', KEYS[5], holder)
  if kept and tonumber(kept) > now then return {'duplicate'} end
end
local field = 'b:' .. ARGV[1]
local wallet = redis.call('HMGET', KEYS[1], field, 'c:' .. ARGV[1])
local stored, currency = wallet[1], wallet[2]
if not stored then return {'unknown_wallet'} end
if tonumber(stored) < tonumber(ARGV[2]) then return {'insufficient', stored, currency} end
redis.call('HINCRBY', KEYS[1], field, -tonumber(ARGV[2]))
if holder then
  redis.call('HDEL', KEYS[4], holder)
  redis.call('HDEL', KEYS[5], holder)
end
local sequence = (tonumber(found[3]) or 0) + 1
redis.call('ZADD', KEYS[3], sequence, ARGV[4])
if ARGV[7] == '' then
  redis.call('HSET', KEYS[2], referenceField, ARGV[4], orderField, ARGV[5], 'n', sequence)
else
  redis.call('HSET', KEYS[2], referenceField, ARGV[4], orderField, ARGV[5], 'n', sequence, keyField, ARGV[8])
  redis.call('ZADD', KEYS[6], ARGV[9], ARGV[7])
end
if sequence % 16 == 0 then
  local expired = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', now, 'LIMIT', 0, 32)
  if #expired > 0 then
    local fields = {}
    for i, key in ipairs(expired) do fields[i] = 'k:' .. key end
    redis.call('HDEL', KEYS[2], unpack(fields))
    redis.call('ZREM', KEYS[6], unpack(expired))
  end
end
return {'placed'}
`;

/** Every script: its name (the client command it becomes), its key count and its source. */
export const REDIS_SCRIPTS = {
  ahWallet: { numberOfKeys: 1, lua: WALLET },
  ahUpdateOrder: { numberOfKeys: 2, lua: UPDATE_ORDER },
  ahEvictOrder: { numberOfKeys: 4, lua: EVICT_ORDER },
  ahPlaceOrder: { numberOfKeys: 6, lua: PLACE_ORDER },
} as const;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;
