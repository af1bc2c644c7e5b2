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
-- Returns  { allowed: 1 or 0,
--            tokens left: a decimal string (the balance is fractional),
--            wait: whole microseconds until cost tokens exist, 0 if there are enough, at most ten years }
--
-- Time is Redis's own clock (TIME, microseconds), so the clients' clocks do not matter. The key expires
-- after about twice the time the bucket needs to fill, clamped to [1 s, 10 years]: never zero or negative.
--
-- Several buckets in one call (the shaper's batched mode charges many keys per sync this way, to spare
-- Redis a script call per key): KEYS[i] with ARGV[4i-3] .. ARGV[4i], and the reply holds the three values
-- above for each bucket in turn. On Redis Cluster all KEYS of one call must share a hash slot. A key that
-- holds another type of value fails the whole call when it is the only one; among several, its three
-- values are { -1, the Redis error text, 0 } and the other buckets are served.

-- Arguments are checked for every bucket before any bucket changes: a bad one fails the call with no effect.
local function number(i, offset, name, expected, valid)
  local raw = ARGV[4 * (i - 1) + offset]
  local value = tonumber(raw)
  if value == nil or value ~= value or value == math.huge or not valid(value) then
    return nil, redis.error_reply('ERR token-bucket: ' .. name .. ' must be ' .. expected .. ', got '
        .. tostring(raw))
  end
  return value
end

local function positive(v) return v > 0 end
local function atLeastOne(v) return v >= 1 end
local function notNegative(v) return v >= 0 end

local args = {}
for i = 1, #KEYS do
  local rate, burst, cost, err
  rate, err = number(i, 1, 'rate', 'a number > 0', positive)
  if err then return err end
  burst, err = number(i, 2, 'burst', 'a number >= 1', atLeastOne)
  if err then return err end
  cost, err = number(i, 3, 'cost', 'a number >= 0', notNegative)
  if err then return err end
  local mode = ARGV[4 * (i - 1) + 4]
  if mode ~= 'take' and mode ~= 'charge' then
    return redis.error_reply('ERR token-bucket: mode must be take or charge, got ' .. tostring(mode))
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
    if mode == 'charge' or tokens >= cost then
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
    redis.call('HSET', KEYS[i], 'tokens', left, 'ts', string.format('%d', ts))
    local ttl = math.ceil(2000 * ((burst - math.min(tokens, 0)) / rate))
    if ttl < 1000 then
      ttl = 1000
    elseif ttl > 315360000000 then
      ttl = 315360000000
    end
    redis.call('PEXPIRE', KEYS[i], ttl)
    reply[#reply + 1] = allowed
    reply[#reply + 1] = left
    reply[#reply + 1] = wait
  end
end
return reply
