-- The cluster-wide capacity, leased to the instances of one application by demand, at a cost per call that does not
-- grow with the number of instances.
--
-- KEYS[1]  the lease table, a hash: one field per live instance, and the table's aggregates (fields starting with '~'
--          or '#'). Its name carries the application id in a {hash tag}, as do the others: "shaper:lease:{<app id>}"
-- KEYS[2]  the leases' expiries, a sorted set (instance -> expiry ms): "shaper:lease:{<app id>}:expiries"
-- KEYS[3]  each live instance's demand, a hash (instance -> demand): "shaper:lease:{<app id>}:demands"
-- ARGV[1]  the calling instance's id (unique per process; never starting with '~' or '#')
-- ARGV[2]  the capacity C, units per second, a number > 0
-- ARGV[3]  the input topic's partitions P, an integer >= 1
-- ARGV[4]  the lease, milliseconds: how long this grant stands without a renewal
-- ARGV[5]  the instance's demand, units per second, by priority: "<priority>:<units>" pairs, comma separated
--          ("" for none)
-- ARGV[6]  the input partitions the instance runs, comma separated ("" for none)
-- ARGV[7]  what the instance may have in use now: what it released in the last second, or its rate if more, units per
--          second
-- ARGV[8]  how long a lost table is learnt again, milliseconds: the longest lease any instance may hold (absent: the
--          lease, ARGV[4])
-- Returns  { grant: this instance's rate until its lease ends, a decimal string,
--            available: what the leases share, a decimal string,
--            instances: the live instances, this one included,
--            demand: the live instances' demands together as of the last sharing-out, a decimal string,
--            learning: 1 while the table is being learnt again after it was lost, else 0 }
--
-- Time is Redis's own clock (TIME). An instance's field is "<expiry ms> <reserved, micro-units/s> <demand>
-- <partitions>". The aggregates change with the fields, so that a call reads no other instance's field: '~reserved'
-- (the reservations together, in micro-units per second: an integer, so that it never drifts), '#<partition>' (how
-- many live instances run it, there while more than 0), '~covered' (how many partitions have a '#' field), '~live',
-- '~epoch', '~partitions' (P, as the counts were made), '~round' (calls, counted), '~shares' (the last sharing-out,
-- below) and '~calls' and '~pending' (the calls and the drift since). A lease that ended is taken out by the next
-- call, whoever makes it (the expiries name it),
-- so a dead instance's part returns within its lease.
--
-- Safety: the leases share C x (partitions run by a live instance) / P. The static share of a partition no
-- live lease covers (C / P each) stays reserved for an instance that runs it without Redis (the fallback), so
-- instances on leases and instances on static shares never add up to more than C. An instance's entry reserves
-- the higher of its new grant and what it may have in use (ARGV[7]): a part it gives up reaches the others only
-- once its releases of the larger part are more than a second old, and a renewal whose answer is lost leaves the
-- instance on its old part, which its entry still reserves. A grant never exceeds what the others' reservations
-- leave ('~reserved', exact at every call), whatever the sharing-out below says. (An entry may reserve more than its
-- grant, what its instance still has in use, and C may fall: then the reservations exceed what the leases share
-- until those releases age, and no one is granted anything beyond them meanwhile.)
--
-- Fairness: priority by priority, and within a priority max-min fair by demand (water-filling); what is left when
-- every demand is met is split evenly, so that a burst on any instance can start before its next renewal. The
-- sharing-out reads every demand, so it is not redone at every call: '~shares' keeps its water level per priority,
-- from which each call takes its target in O(priorities). A call redoes it once it is a quarter of a lease old (a
-- renewal period), or once demands and the shared capacity have moved by more than a twentieth of it since (joins,
-- leaves, a cut of C) and, in a table of more than twenty instances, at least half as many calls as there are
-- instances came since the last one: a churn of demands costs Redis a sharing-out, O(N), per half round of renewals
-- at most, so O(1) per call.
--
-- A lost table (flushed, evicted, a failover to a replica that had not seen it, Redis restarted empty) must not
-- let the next caller take C while the others still release at their parts. A table without its '~epoch' field was
-- lost, and once per round of renewals the other keys' sizes are checked against '~live'; when anything is missing
-- or differs, or P is not the one the table counted partitions by, the three keys start again with a new epoch and
-- a learning period of the longest lease (ARGV[8]), during which no grant exceeds what the caller holds already
-- (ARGV[7]): the table fills again with the parts in use before anyone gets more. No key has an expiry, so that no
-- eviction policy that prefers keys with one (volatile-*) takes them first.
-- Commands it calls: TIME, DEL, HGET, HMGET, HSET, HDEL, HLEN, HINCRBY, HGETALL, ZCARD, ZADD, ZREM, ZRANGEBYSCORE.

local TABLE, EXPIRIES, DEMANDS = KEYS[1], KEYS[2], KEYS[3]
local MICRO = 1000000
local DRIFT = 0.05

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local capacity = tonumber(ARGV[2])
local partitions = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local demandSpec = ARGV[5]
local held = math.max(0, tonumber(ARGV[7] or '') or 0)

-- The aggregates and this instance's entry as it was.
local agg = redis.call('HMGET', TABLE, '~epoch', '~reserved', '~covered', '~live', '~shares', me, '~round',
    '~calls', '~pending', '~partitions')
local epoch = agg[1]
local reservedSum = tonumber(agg[2]) or 0
local covered = tonumber(agg[3]) or 0
local live = tonumber(agg[4]) or 0
local old = agg[6]
-- Counts the calls, so that the other keys are checked once per round of renewals, every '~live' calls.
local round = (tonumber(agg[7]) or 0) + 1

-- The last sharing-out: "<at ms> <available> <demand> <headroom> <p>=<level>,...", a level of -1 meaning that
-- priority was served whole; and the calls and the drift since ('~calls', '~pending').
local sharesSpec = agg[5]
local at, sharedAvailable, totalDemand, headroom, levelSpec
if sharesSpec then
  at, sharedAvailable, totalDemand, headroom, levelSpec = string.match(sharesSpec, '^(%S+) (%S+) (%S+) (%S+) ?(.*)$')
end
at, sharedAvailable, totalDemand, headroom = tonumber(at), tonumber(sharedAvailable), tonumber(totalDemand),
    tonumber(headroom)
local calls, pending = (tonumber(agg[8]) or 0) + 1, tonumber(agg[9]) or 0

-- A table without its epoch was lost, one of another P counted other partitions; once per round of renewals the other
-- keys' sizes are checked against the table's counts too (a key deleted or evicted alone). Any of these: all three
-- start again, with a new epoch.
if not epoch or tonumber(agg[10]) ~= partitions
    or (live > 0 and round % live == 0 and (redis.call('ZCARD', EXPIRIES) ~= live
    or redis.call('HLEN', DEMANDS) ~= live)) then
  redis.call('DEL', TABLE, EXPIRIES, DEMANDS)
  epoch = tostring(now + math.max(lease, tonumber(ARGV[8] or '') or 0))
  reservedSum, covered, live, old = 0, 0, 0, false
  sharesSpec, at, sharedAvailable, totalDemand, headroom, levelSpec = false, nil, nil, nil, nil, nil
  calls, pending = 1, 0
end
local learning = now < tonumber(epoch)

-- A partition list as the set of partitions it names, and its canonical text.
local function partitionSet(list)
  local set, names = {}, {}
  for p in string.gmatch(list or '', '[^,]+') do
    local n = tonumber(p)
    if n and n >= 0 and n < partitions and n == math.floor(n) and not set[n] then
      set[n] = true
      names[#names + 1] = p
    end
  end
  return set, table.concat(names, ',')
end

-- How many live instances run a partition: the table's field '#<partition>', there while more than 0.
local function uncover(set)
  for n in pairs(set) do
    if redis.call('HINCRBY', TABLE, '#' .. n, -1) <= 0 then
      redis.call('HDEL', TABLE, '#' .. n)
      covered = covered - 1
    end
  end
end

local function cover(set)
  for n in pairs(set) do
    if redis.call('HINCRBY', TABLE, '#' .. n, 1) == 1 then
      covered = covered + 1
    end
  end
end

-- A demand as a table priority -> units per second, and its total.
local function parseDemand(spec)
  local byPriority, total = {}, 0
  for p, d in string.gmatch(spec or '', '(%d+):([^,]+)') do
    local units = math.max(0, tonumber(d) or 0)
    byPriority[tonumber(p)] = units
    total = total + units
  end
  return byPriority, total
end

local function parseEntry(value)
  local _, reserved, wanted, list = string.match(value, '^(%S+) (%S+) (%S+) ?(.*)$')
  return tonumber(reserved) or 0, wanted, list
end

-- What moved since the last sharing-out: demands, and what the leases share.
local drift = 0

-- Leases that ended, this instance's included: their reservations, partitions and demands leave the aggregates.
local ended = redis.call('ZRANGEBYSCORE', EXPIRIES, '-inf', now)
for _, id in ipairs(ended) do
  local value = id == me and old or redis.call('HGET', TABLE, id)
  if value then
    local reserved, wanted, list = parseEntry(value)
    reservedSum = reservedSum - reserved
    uncover((partitionSet(list)))
    local _, total = parseDemand(wanted)
    drift = drift + total
    redis.call('HDEL', TABLE, id)
    redis.call('HDEL', DEMANDS, id)
    live = live - 1
  end
  redis.call('ZREM', EXPIRIES, id)
  if id == me then
    old = false
  end
end

-- This instance's entry: its partitions now, and its demand. Most renewals repeat the partitions and the
-- entry's canonical list: nothing to parse then.
local myDemand, myTotal = parseDemand(demandSpec)
local myList = ARGV[6]
local oldReserved = 0
if old then
  local reserved, wanted, list = parseEntry(old)
  oldReserved = reserved
  if wanted ~= demandSpec then
    local _, oldTotal = parseDemand(wanted)
    drift = drift + math.abs(myTotal - oldTotal)
  end
  if list ~= myList then
    local mySet
    mySet, myList = partitionSet(myList)
    if list ~= myList then
      uncover((partitionSet(list)))
      cover(mySet)
    end
  end
else
  local mySet
  mySet, myList = partitionSet(myList)
  live = live + 1
  drift = drift + myTotal
  cover(mySet)
end

local available = capacity * math.min(covered, partitions) / partitions

pending = pending + drift + math.abs(available - (sharedAvailable or available))

local stale = at == nil or now - at >= lease / 4
local moved = pending > DRIFT * math.max(available, totalDemand or 0) and (live <= 20 or calls >= live / 2)
local levels = {}
if stale or moved then
  -- Water-filling, priority by priority: ascending by demand, each gets its demand while that is below an equal
  -- split of what the higher priorities left.
  local demands = { myDemand }
  local all = redis.call('HGETALL', DEMANDS)
  for i = 1, #all, 2 do
    if all[i] ~= me then
      demands[#demands + 1] = (parseDemand(all[i + 1]))
    end
  end
  totalDemand = 0
  local priorities, seen = {}, {}
  for _, d in ipairs(demands) do
    for p, units in pairs(d) do
      totalDemand = totalDemand + units
      if not seen[p] then
        seen[p] = true
        priorities[#priorities + 1] = p
      end
    end
  end
  table.sort(priorities)
  local remaining = available
  for _, p in ipairs(priorities) do
    if remaining <= 0 then
      levels[p] = 0
    else
      local sorted = {}
      for i, d in ipairs(demands) do
        sorted[i] = d[p] or 0
      end
      table.sort(sorted)
      local left, given, level = #sorted, 0, nil
      for _, d in ipairs(sorted) do
        if d <= (remaining - given) / left then
          given = given + d
          left = left - 1
        else
          level = (remaining - given) / left
          break
        end
      end
      if level == nil then
        levels[p] = -1
        remaining = remaining - given
      else
        levels[p] = level
        remaining = 0
      end
    end
  end
  headroom = remaining > 0 and remaining / math.max(1, #demands) or 0
  local parts = {}
  for _, p in ipairs(priorities) do
    parts[#parts + 1] = string.format('%d=%.17g', p, levels[p])
  end
  at, calls, pending, sharedAvailable, levelSpec = now, 0, 0, available, table.concat(parts, ',')
  sharesSpec = string.format('%d %.17g %.17g %.17g %s', at, sharedAvailable, totalDemand, headroom, levelSpec)
else
  for p, level in string.gmatch(levelSpec or '', '(%d+)=([^,]+)') do
    levels[tonumber(p)] = tonumber(level)
  end
end

-- This instance's target from the levels: a priority the last sharing-out did not see gets the headroom, if any.
local target = headroom
for p, units in pairs(myDemand) do
  local level = levels[p]
  if level == nil then
    level = headroom
  end
  target = target + (level < 0 and units or math.min(units, level))
end

local othersReserved = reservedSum - oldReserved
local grantMicro = math.floor(math.max(0, math.min(target * MICRO, available * MICRO - othersReserved)))
if learning then
  grantMicro = math.min(grantMicro, math.floor(held * MICRO))
end
-- What it holds, to the nearest micro-unit: a grant it reports back as held comes back to the same number
local reservedMicro = math.max(grantMicro, math.floor(held * MICRO + 0.5))
reservedSum = othersReserved + reservedMicro

redis.call('HSET', TABLE, me, string.format('%d %d %s %s', now + lease, reservedMicro,
    demandSpec == '' and '0:0' or demandSpec, myList),
    '~epoch', epoch, '~reserved', string.format('%d', reservedSum), '~covered', covered, '~live', live,
    '~partitions', partitions, '~round', round % 1000000000, '~calls', calls,
    '~pending', string.format('%.17g', pending), '~shares', sharesSpec)
redis.call('ZADD', EXPIRIES, now + lease, me)
redis.call('HSET', DEMANDS, me, demandSpec)
return { string.format('%.17g', grantMicro / MICRO), string.format('%.17g', available), live,
         string.format('%.17g', totalDemand), learning and 1 or 0 }
