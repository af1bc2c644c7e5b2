-- A token bucket shared by every client that runs this script (shaper instances and other services).
--
-- KEYS[1]  the bucket: a hash {tokens, ts}. Put the bucket's name in a {hash tag} so that a bucket
--          always lives in one Redis Cluster slot; the shaper uses "shaper:tb:{<admission key>}".
-- ARGV[1]  rate: tokens added per second, a number > 0
-- ARGV[2]  burst: the capacity in tokens, a number >= 1
-- ARGV[3]  cost: the tokens requested, a number >= 0
-- ARGV[4]  "take": take cost tokens only if that many exist (the strict mode)
--          "charge": take cost tokens whatever the balance, which may go negative (consumption that was
--          already admitted elsewhere, reported by the batched mode)
--          "cap": lower the balance to at most cost tokens; never raise it (a shaper that admitted from local
--          buckets while Redis was out of reach writes back what it estimates is left)
-- Returns  { allowed: 1 or 0,
--            tokens left: a decimal string (the balance is fractional),
--            wait: whole microseconds until cost tokens exist, 0 if there are enough, at most ten years }
--
-- Time is Redis's own clock (TIME, microseconds), so the clients' clocks do not matter. The key expires
-- after about twice the time the bucket needs to fill, clamped to [1 s, 10 years]: never zero or negative.
-- Commands it calls (for a Redis ACL user that may run only what the shaper needs): TIME, HMGET, HSET, PTTL
-- and PEXPIRE; the shaper itself also sends EVALSHA, EVAL (to load the script) and PING.
--
-- A write renews the TTL only once less than half of the needed TTL is left (so a key always outlives the
-- time its bucket needs to fill, whoever wrote it last): reading it back costs Redis less than setting it,
-- which was a fifth of the script's cost per bucket, and the batched mode charges every bucket it touched
-- several times a second.
--
-- Several buckets in one call (the shaper's batched mode charges many keys per sync this way, to spare
-- Redis a script call per key): KEYS[i] with ARGV[4i-3] .. ARGV[4i], and the reply holds the three values
-- above for each bucket in turn. On Redis Cluster all KEYS of one call must share a hash slot. A key that
-- holds another type of value fails the whole call when it is the only one; among several, its three
-- values are { -1, the Redis error text, 0 } and the other buckets are served.

-- Arguments are checked for every bucket before any bucket changes: a bad one fails the call with no effect.
-- (Inline rather than through a helper function: this loop runs for every bucket of every call.)
local function bad(i, offset, name, expected)
  return redis.error_reply('ERR token-bucket: ' .. name .. ' must be ' .. expected .. ', got '
      .. tostring(ARGV[4 * (i - 1) + offset]))
end

local args = {}
for i = 1, #KEYS do
  local j = 4 * (i - 1)
  local rate, burst, cost = tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]), tonumber(ARGV[j + 3])
  if rate == nil or rate ~= rate or rate == math.huge or not (rate > 0) then
    return bad(i, 1, 'rate', 'a number > 0')
  end
  if burst == nil or burst ~= burst or burst == math.huge or not (burst >= 1) then
    return bad(i, 2, 'burst', 'a number >= 1')
  end
  if cost == nil or cost ~= cost or cost == math.huge or not (cost >= 0) then
    return bad(i, 3, 'cost', 'a number >= 0')
  end
  local mode = ARGV[j + 4]
  if mode ~= 'take' and mode ~= 'charge' and mode ~= 'cap' then
    return redis.error_reply('ERR token-bucket: mode must be take, charge or cap, got ' .. tostring(mode))
  end
  args[i] = { rate, burst, cost, mode }
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local reply = {}

for i = 1, #KEYS do
  local rate, burst, cost, mode = args[i][1], args[i][2], args[i][3], args[i][4]
  local state = redis.pcall('HMGET', KEYS[i], 'tokens', 'ts')
  if type(state) == 'table' and state.err then
    if #KEYS == 1 then
      return redis.error_reply(state.err)
    end
    reply[#reply + 1] = -1
    reply[#reply + 1] = state.err
    reply[#reply + 1] = 0
  else
    local tokens = tonumber(state[1])
    local ts = tonumber(state[2])
    if tokens == nil or ts == nil then
      tokens = burst
      ts = now
    end
    if now > ts then
      tokens = math.min(burst, tokens + (now - ts) * rate / 1000000)
      ts = now
    end

    local allowed = 0
    if mode == 'cap' then
      tokens = math.min(tokens, cost)
      allowed = 1
    elseif mode == 'charge' or tokens >= cost then
      tokens = tokens - cost
      allowed = 1
    end
    local wait = 0
    if allowed == 0 then
      wait = math.ceil((cost - tokens) * 1000000 / rate)
      -- Redis turns a Lua number into an integer reply by a C cast: keep it far inside a signed 64-bit integer.
      if wait > 315360000000000 then
        wait = 315360000000000
      end
    end

    local left = string.format('%.17g', tokens)
    local ttl = math.ceil(2000 * ((burst - math.min(tokens, 0)) / rate))
    if ttl < 1000 then
      ttl = 1000
    elseif ttl > 315360000000 then
      ttl = 315360000000
    end
    redis.call('HSET', KEYS[i], 'tokens', left, 'ts', string.format('%d', ts))
    -- PTTL is -1 for a key without a TTL (PERSIST, a restore): it gets one too.
    if redis.call('PTTL', KEYS[i]) < ttl / 2 then
      redis.call('PEXPIRE', KEYS[i], ttl)
    end
    reply[#reply + 1] = allowed
    reply[#reply + 1] = left
    reply[#reply + 1] = wait
  end
end
return reply
