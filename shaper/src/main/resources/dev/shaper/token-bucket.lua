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

local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local mode = ARGV[4]
if rate == nil or rate ~= rate or rate <= 0 or rate == math.huge then
  return redis.error_reply('ERR token-bucket: rate must be a number > 0, got ' .. tostring(ARGV[1]))
end
if burst == nil or burst ~= burst or burst < 1 or burst == math.huge then
  return redis.error_reply('ERR token-bucket: burst must be a number >= 1, got ' .. tostring(ARGV[2]))
end
if cost == nil or cost ~= cost or cost < 0 or cost == math.huge then
  return redis.error_reply('ERR token-bucket: cost must be a number >= 0, got ' .. tostring(ARGV[3]))
end
if mode ~= 'take' and mode ~= 'charge' then
  return redis.error_reply('ERR token-bucket: mode must be take or charge, got ' .. tostring(mode))
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
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

redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'ts', string.format('%d', ts))
local ttl = math.ceil(2000 * ((burst - math.min(tokens, 0)) / rate))
if ttl < 1000 then
  ttl = 1000
elseif ttl > 315360000000 then
  ttl = 315360000000
end
redis.call('PEXPIRE', KEYS[1], ttl)
return { allowed, string.format('%.17g', tokens), wait }
