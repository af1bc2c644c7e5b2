-- The part the fixed-window and the sliding-window scripts share, word for word: not a script by itself. The
-- shaper puts it where a script has the line "-- #include window-counters.lua" when it loads the script
-- (RedisScript.load); a service that runs one of them itself pastes it there.
--
-- It expects SCRIPT_NAME, the name that starts the error replies ('fixed-window'), and admission-common.lua (whole)
-- and limit-lists.lua (limitsOnce) before it, and leaves for the rest:
--   args[i]      the checked arguments of KEYS[i]: { limits = { { max, window, name }, ... }, costs, mode }
--   read, add    a counter's count, and adding to a counter (a new one gets its TTL)
--   tally        what a call adds to each limit's current window, and what each limit has left then
--   now          Redis's time in microseconds
--   TEN_YEARS_US the longest wait

local TEN_YEARS_MS = 315360000000
local TEN_YEARS_US = 315360000000000

local function bad(name, expected, got)
  return redis.error_reply('ERR ' .. SCRIPT_NAME .. ': ' .. name .. ' must be ' .. expected .. ', got '
      .. tostring(got))
end

-- The limits of a max and a window argument, or an error reply.
local function parseLimits(maxes, windows, maxText)
  local n = #maxes
  if n == 0 then
    return bad('max', 'a number >= 1', maxText)
  end
  if #windows ~= n then
    return redis.error_reply('ERR ' .. SCRIPT_NAME .. ': max and window must list as many limits, got ' .. n
        .. ' and '
        .. #windows)
  end
  local limits = {}
  for l = 1, n do
    local max, window = tonumber(maxes[l]), tonumber(windows[l])
    if max == nil or max ~= max or max == math.huge or not (max >= 1) then
      return bad('max', 'a number >= 1', maxes[l])
    end
    if window == nil or window ~= math.floor(window) or window < 1 or window > TEN_YEARS_MS then
      return bad('window', 'a whole number of milliseconds from 1 to ' .. TEN_YEARS_MS, windows[l])
    end
    for k = 1, l - 1 do
      if limits[k].window == window then
        return bad('window', 'a different length for each limit', windows[l])
      end
    end
    limits[l] = { max = max, window = window, name = ':' .. string.format('%d', window) .. ':' }
  end
  return limits
end

local function limitsOf(maxText, windowText)
  return limitsOnce(maxText, windowText, parseLimits)
end

local args = {}
for i = 1, #KEYS do
  local j = 4 * (i - 1)
  local limits, mode = limitsOf(ARGV[j + 1], ARGV[j + 2]), ARGV[j + 4]
  if limits.err then
    return limits
  end
  local n = #limits
  if mode ~= 'take' and mode ~= 'charge' and mode ~= 'cap' then
    return bad('mode', 'take, charge or cap', mode)
  end
  -- cost: one number for every limit, or for cap one per limit
  local costs, wrong, got = costsOf(ARGV[j + 3], n)
  if wrong == 'count' or (mode ~= 'cap' and tonumber(ARGV[j + 3]) == nil) then
    return bad('cost', 'one number, or for cap one per limit', ARGV[j + 3])
  elseif costs == nil then
    return bad('cost', 'a number >= 0', got)
  end
  for l = 1, n do
    local c = costs[l]
    if mode == 'cap' then
      if c ~= c or c == math.huge or not (c >= 0) then
        return bad('cost', 'a number >= 0', c)
      end
    elseif c ~= math.floor(c) or c < 0 or c > 1e15 then
      return bad('cost', 'a whole number from 0 to 1e15', ARGV[j + 3])
    end
  end
  args[i] = { limits = limits, costs = costs, mode = mode }
end

-- Adds amount (whole, > 0) to a counter; a new counter gets its TTL.
local function add(name, amount, ttl)
  local count = redis.call('INCRBY', name, string.format('%d', amount))
  if count == amount then
    redis.call('PEXPIRE', name, ttl)
  end
  return count
end

-- The count a counter holds (0 if none), or nil and an error text.
local function read(name)
  local count, err = whole(name, 'a window count')
  if err then
    return nil, err
  end
  return count or 0
end

-- Counts what the call adds to each limit's current window, whose counts and names the caller read, and returns
-- what each limit has left: cap raises the count so that at most the cost is left (never lowers it); take, once
-- allowed, and charge add the cost. carried[l] is what the previous window still weighs (0 for the fixed window).
local function tally(names, limits, costs, counts, carried, mode, allowed)
  local left = {}
  for l = 1, #limits do
    local limit = limits[l]
    local ttl = 2 * limit.window
    if mode == 'cap' then
      local raise = math.ceil(limit.max - costs[l] - carried[l] - counts[l])
      if raise > 0 then
        counts[l] = add(names[l], raise, ttl)
      end
    elseif allowed == 1 and costs[l] > 0 then
      counts[l] = add(names[l], costs[l], ttl)
    end
    left[l] = limit.max - counts[l] - carried[l]
  end
  return left
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
