-- GCRA (the generic cell rate algorithm: the leaky bucket as a meter), shared by every client that runs this
-- script (shaper instances and other services): per limit, one theoretical arrival time (TAT) per key.
--
-- With T = 1 / rate, one unit's emission interval, a cost c fits if max(TAT, now) + c x T - now <= burst x T, and
-- then moves the TAT to max(TAT, now) + c x T. What is left is burst - (max(TAT, now) - now) / T: the same figure,
-- and the same decisions, as a token bucket of that rate and burst (token-bucket.lua), kept as one number.
--
-- KEYS[i]  the admission key's name, with the admission key in a {hash tag}; the shaper uses
--          "shaper:gcra:{<admission key>}". The first limit's TAT is a string under that name, the n-th limit's
--          under <KEYS[i]>:<n> (same hash tag, so the same Redis Cluster slot: the call runs on the node KEYS[i]
--          routes to, and may touch them there, since the script has no #!lua shebang). A TAT is whole
--          microseconds of Redis's clock; the key expires when its TAT passes, when it no longer says anything.
-- ARGV[1]  rate: units per second, a number > 0
-- ARGV[2]  burst: the most units admitted at once, a number >= 1
-- ARGV[3]  cost: the units requested, a number >= 0
-- ARGV[4]  "take": move the TAT on by cost only if the cost fits (the strict mode)
--          "charge": move it on whatever it says, past the burst if need be (consumption already admitted
--          elsewhere, reported by the batched mode: a debt, paid back as time passes)
--          "cap": move it on so that at most cost is left; never back (a shaper that admitted from local state
--          while Redis was out of reach writes back what it estimates is left)
-- Returns  { allowed: 1 or 0,
--            left: what is left after the call, a decimal string (below 0 after a charge past the burst),
--            wait: whole microseconds until cost fits, 0 if it fits now, at most ten years }
--
-- Several limits per key (a rule's admission.limits): rate and burst are comma-separated lists, one number per
-- limit; cost is one number for every limit, or a list of one per limit (cap sets a ceiling per limit). take moves
-- every limit's TAT only if the cost fits in each: all or none. The reply's allowed is then 1 only if all were
-- taken, and left and wait are lists in the same order (wait 0 for a limit that allows).
--
-- Several keys per call: KEYS[i] with ARGV[4i-3] .. ARGV[4i], and the reply holds the three values above for each
-- key in turn. On Redis Cluster all KEYS of one call must share a hash slot. Arguments are checked for every key
-- before anything changes: a bad one fails the call with no effect. A key one of whose TATs holds something else
-- than a whole number fails the call when it is the only key; among several, its three values are
-- { -1, the error text, 0 } and the other keys are served; in both cases nothing of that key changes. The error
-- text starts with WRONGTYPE.
--
-- Time is Redis's own clock (TIME, microseconds), so the clients' clocks do not matter. Commands it calls (for a
-- Redis ACL user that may run only what the shaper needs): TIME, GET and SET.
--
-- The lines it shares with the window scripts stand in admission-common.lua, which the shaper puts in place of the
-- "-- #include" line below when it loads the script: a service that runs the script itself pastes that file there.

local TEN_YEARS_US = 315360000000000

-- The reply (answer, out) and reading a number (whole): the same in the scripts but the token bucket's.
-- #include admission-common.lua

local function fail(what, got)
  return redis.error_reply('ERR gcra: ' .. what .. ', got ' .. tostring(got))
end

-- The numbers of a comma-separated list, or nil and the item that is not one.
local function numbers(text)
  local values = {}
  for item in string.gmatch(text or '', '[^,]+') do
    local value = tonumber(item)
    if value == nil or value ~= value or value == math.huge or value == -math.huge then
      return nil, item
    end
    values[#values + 1] = value
  end
  return values
end

local args = {}
for i = 1, #KEYS do
  local j = 4 * (i - 1)
  local rates, badRate = numbers(ARGV[j + 1])
  if rates == nil or #rates == 0 then
    return fail('rate must be a number > 0', badRate or ARGV[j + 1])
  end
  local bursts, badBurst = numbers(ARGV[j + 2])
  if bursts == nil then
    return fail('burst must be a number >= 1', badBurst)
  end
  if #bursts ~= #rates then
    return redis.error_reply('ERR gcra: rate and burst must list as many limits, got ' .. #rates .. ' and '
        .. #bursts)
  end
  local costs, badCost = numbers(ARGV[j + 3])
  if costs == nil or #costs == 0 then
    return fail('cost must be a number >= 0', badCost or ARGV[j + 3])
  end
  if #costs == 1 then
    for l = 2, #rates do
      costs[l] = costs[1]
    end
  elseif #costs ~= #rates then
    return fail('cost must be one number or one per limit', ARGV[j + 3])
  end
  local mode = ARGV[j + 4]
  if mode ~= 'take' and mode ~= 'charge' and mode ~= 'cap' then
    return fail('mode must be take, charge or cap', mode)
  end
  for l = 1, #rates do
    if not (rates[l] > 0) then
      return fail('rate must be a number > 0', rates[l])
    end
    if not (bursts[l] >= 1) then
      return fail('burst must be a number >= 1', bursts[l])
    end
    if not (costs[l] >= 0) then
      return fail('cost must be a number >= 0', costs[l])
    end
  end
  args[i] = { rates = rates, bursts = bursts, costs = costs, mode = mode }
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

-- The TAT a name holds (now if none, or one in the past), or nil and an error text.
local function arrival(name)
  local tat, err = whole(name, 'a GCRA arrival time')
  if err then
    return nil, err
  end
  return math.max(tat or now, now)
end

-- The three reply values of KEYS[i] after the call, or nil and the error text of a TAT that is not one.
local function admit(i)
  local a = args[i]
  local n = #a.rates
  local names, tats, intervals = {}, {}, {}
  for l = 1, n do
    names[l] = l == 1 and KEYS[i] or KEYS[i] .. ':' .. l
    intervals[l] = 1000000 / a.rates[l]
    local tat, err = arrival(names[l])
    if tat == nil then
      return nil, err
    end
    tats[l] = tat
  end
  -- What each limit has left, and how long until the cost fits in it.
  local has, waits, fits = {}, {}, true
  for l = 1, n do
    has[l] = a.bursts[l] - (tats[l] - now) / intervals[l]
    waits[l] = 0
    if has[l] < a.costs[l] then
      fits = false
      waits[l] = math.min(math.ceil((a.costs[l] - has[l]) * intervals[l]), TEN_YEARS_US)
    end
  end
  local allowed = (fits or a.mode ~= 'take') and 1 or 0
  local left = {}
  for l = 1, n do
    local tat = tats[l]
    if a.mode == 'cap' then
      tat = math.max(tat, now + (a.bursts[l] - a.costs[l]) * intervals[l])
    elseif allowed == 1 then
      tat = tat + a.costs[l] * intervals[l]
    end
    tat = math.min(math.floor(tat + 0.5), now + TEN_YEARS_US)
    if tat > tats[l] then
      local ttl = math.ceil((tat - now) / 1000)
      redis.call('SET', names[l], string.format('%d', tat), 'PX', string.format('%d', ttl))
    end
    left[l] = a.bursts[l] - (tat - now) / intervals[l]
    if allowed == 1 then
      waits[l] = 0
    end
  end
  return { allowed, out(left, '%.17g'), out(waits, '%d') }
end

return answer(admit, 3)
