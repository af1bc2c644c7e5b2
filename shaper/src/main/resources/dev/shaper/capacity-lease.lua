-- The cluster-wide capacity, leased to the instances of one application by demand.
--
-- KEYS[1]  the application's lease table, a hash with one field per live instance. Its name carries the
--          application id in a {hash tag}: "shaper:cap:{<application.id>}".
-- KEYS[2]  the table's epoch, a string in the same slot: "shaper:cap:{<application.id>}:epoch"
-- ARGV[1]  the calling instance's id (unique per process)
-- ARGV[2]  the capacity C, units per second, a number > 0
-- ARGV[3]  the input topic's partitions P, an integer >= 1
-- ARGV[4]  the lease, milliseconds: how long a grant stands without a renewal
-- ARGV[5]  the instance's demand, units per second, by priority: "<priority>:<units>" pairs, comma separated
--          ("" for none; a plain number, as older instances send, is priority 0)
-- ARGV[6]  the input partitions the instance runs, comma separated ("" for none)
-- ARGV[7]  what the instance may have in use now: what it released in the last second, or its rate if more, units per
--          second ("" or absent, as older instances send: nothing beyond its grant)
-- Returns  { grant: this instance's rate until its lease ends, a decimal string,
--            available: what the leases share, a decimal string,
--            instances: the live instances, this one included,
--            demand: the live instances' demands together, a decimal string,
--            learning: 1 while the table is being learnt again after it was lost, else 0 }
--
-- Time is Redis's own clock (TIME). A field's value is "<expiry ms> <reserved> <demand> <partitions>"; a field
-- whose lease ended is deleted by the next call, so a dead instance's part returns within one lease.
--
-- Safety: the leases share C x (partitions run by a live instance) / P. The static share of a partition no
-- live lease covers (C / P each) stays reserved for an instance that runs it without Redis (the fallback), so
-- instances on leases and instances on static shares never add up to more than C. An instance's entry reserves
-- the higher of its new grant and what it may have in use (ARGV[7]): a part it gives up reaches the others only
-- once its releases of the larger part are more than a second old (every release of the instance waits for its own
-- window of the last second), and a renewal whose answer is lost leaves the instance on its old part, which its
-- entry still reserves. A grant never exceeds what the others' reservations
-- leave: an instance whose fair share grew gets it once the others have renewed with their smaller shares and
-- their releases at the larger ones are more than a second old.
--
-- A lost table (flushed, evicted, a failover to a replica that had not seen it, Redis restarted empty) must not
-- let the next caller take C while the others still release at their parts. The table carries its epoch in a
-- field that matches KEYS[2]; when either is missing or they differ, a new epoch starts with a learning period of
-- one lease, during which no grant exceeds what the caller holds already (ARGV[7]): the table fills again with the
-- parts in use before anyone gets more. Neither key has an expiry, so that no eviction policy that prefers keys
-- with one (volatile-*) takes them first.
--
-- Fairness: priority by priority (what instances ask at priority 0 first, then at 1, ...), and within a priority
-- max-min fair by demand (water-filling); what is left when every demand is met is split evenly, so that a burst
-- on any instance can start before its next renewal.
-- Commands it calls: TIME, GET, SET, HGET, HGETALL, HDEL, HSET.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local capacity = tonumber(ARGV[2])
local partitions = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local demandSpec = ARGV[5]
local mine = ARGV[6]
local held = math.max(0, tonumber(ARGV[7] or '') or 0)
local EPOCH_FIELD = '~epoch'

-- The epoch: the end of its learning period, in Redis's milliseconds, in KEYS[2] and in the table alike.
local epoch = redis.call('GET', KEYS[2])
if not epoch or redis.call('HGET', KEYS[1], EPOCH_FIELD) ~= epoch then
  epoch = tostring(now + lease)
  redis.call('SET', KEYS[2], epoch)
  redis.call('HSET', KEYS[1], EPOCH_FIELD, epoch)
end
local learning = now < tonumber(epoch)

local covered = {}
local ncovered = 0
local function cover(list)
  for p in string.gmatch(list, '[^,]+') do
    local n = tonumber(p)
    if n and n >= 0 and n < partitions and not covered[n] then
      covered[n] = true
      ncovered = ncovered + 1
    end
  end
end
cover(mine)

-- A demand as a table priority -> units per second.
local function parse(spec)
  local byPriority = {}
  local plain = tonumber(spec)
  if plain then
    byPriority[0] = math.max(0, plain)
    return byPriority
  end
  for p, d in string.gmatch(spec or '', '(%d+):([^,]+)') do
    byPriority[tonumber(p)] = math.max(0, tonumber(d) or 0)
  end
  return byPriority
end

local demands = { parse(demandSpec) }
local othersReserved = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local id = fields[i]
  if id ~= me and id ~= EPOCH_FIELD then
    local expiry, reserved, wanted, list = string.match(fields[i + 1], '^(%S+) (%S+) (%S+) ?(.*)$')
    if expiry == nil or tonumber(expiry) == nil or tonumber(expiry) <= now then
      redis.call('HDEL', KEYS[1], id)
    else
      othersReserved = othersReserved + (tonumber(reserved) or 0)
      demands[#demands + 1] = parse(wanted)
      cover(list)
    end
  end
end

local available = capacity * ncovered / partitions
local totalDemand = 0
local priorities = {}
local seen = {}
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

-- Priority by priority, water-filling what the higher ones left: ascending by demand, each gets its demand while
-- that is below an equal split of the rest. The calling instance is demands[1].
local remaining = available
local target = 0
for _, p in ipairs(priorities) do
  if remaining <= 0 then
    break
  end
  local sorted = {}
  local mineAt = demands[1][p] or 0
  for i, d in ipairs(demands) do
    sorted[i] = d[p] or 0
  end
  table.sort(sorted)
  local left = #sorted
  local level = nil
  local given = 0
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
    target = target + mineAt
    remaining = remaining - given
  else
    target = target + math.min(mineAt, level)
    remaining = 0
  end
end
if remaining > 0 then
  target = target + remaining / #demands
end

local grant = math.max(0, math.min(target, available - othersReserved))
if learning then
  grant = math.min(grant, held)
end
local reserved = math.max(grant, held)
redis.call('HSET', KEYS[1], me, string.format('%d %.17g %s %s', now + lease, reserved,
    demandSpec == '' and '0' or demandSpec, mine))
return { string.format('%.17g', grant), string.format('%.17g', available), #demands,
         string.format('%.17g', totalDemand), learning and 1 or 0 }
