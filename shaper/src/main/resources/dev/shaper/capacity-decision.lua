-- The closed loop's capacity, decided once for all the instances of one application.
--
-- KEYS[1]  the application's decision, a hash; its name carries the application id in the same {hash tag} as the
--          lease table, so both live in one Redis Cluster slot: "shaper:capdecision:{<application.id>}".
--          Fields: capacity, reason, at (ms, Redis's clock), by (an instance id), warmupat (the newest warm-up's
--          start, ms, Redis's clock).
-- ARGV[1]  the calling instance's id (unique per process)
-- ARGV[2]  its proposal: the capacity, units per second, a number > 0
-- ARGV[3]  the proposal's reason (latency, errors, healthy, no_feedback, warming_up)
-- ARGV[4]  the decision interval, milliseconds (shaper.capacity.adjust.ms), > 0
-- ARGV[5]  how long a decision is kept without a newer one, milliseconds, > 0 (a few feedback timeouts)
-- ARGV[6]  how long ago the newest warm-up the caller knows started, milliseconds by its clock; -1 for none
-- Returns  { capacity: the decision in force, a decimal string,
--            reason: its reason,
--            at: when it was decided, ms by Redis's clock,
--            by: the instance whose proposal it was,
--            stored: 1 when the caller's proposal became the decision, else 0,
--            warmup: how long ago the newest warm-up known to any instance started, ms, "-1" for none }
--
-- Time is Redis's own clock (TIME), so the instances' clocks never decide who decides. A proposal becomes the
-- decision when the decision in force is at least one interval old, or absent (the first call, or no instance
-- decided for the keep time); otherwise the caller gets the decision in force. So the capacity moves at most once
-- per interval, and every instance applies what it is told. A warm-up's start is kept apart: the newest wins at
-- once, so that a warm-up any instance starts holds the whole application's capacity. It travels as an age, a
-- duration, and is kept by Redis's clock, so an instance whose clock is ahead cannot start one in the future.
-- Commands it calls: TIME, HMGET, HSET, PEXPIRE.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local proposed = tonumber(ARGV[2])
local reason = ARGV[3]
local interval = tonumber(ARGV[4])
local keep = tonumber(ARGV[5])
local warmupAge = tonumber(ARGV[6]) or -1
if proposed == nil or proposed <= 0 or interval == nil or interval <= 0 or keep == nil or keep <= 0 then
  return redis.error_reply('capacity-decision: need a capacity > 0, an interval > 0 and a keep time > 0')
end

local stored = redis.call('HMGET', KEYS[1], 'capacity', 'reason', 'at', 'by', 'warmupat')
local capacity = tonumber(stored[1])
local at = tonumber(stored[3])
local storedWarmup = tonumber(stored[5]) or 0
local written = false
local mine = 0

-- A decision from the future (Redis's clock was set back) counts as due, or it would stand until the clock catches up.
if capacity == nil or at == nil or now - at >= interval or at > now then
  capacity = proposed
  at = now
  stored[2] = reason
  stored[4] = me
  mine = 1
  redis.call('HSET', KEYS[1], 'capacity', string.format('%.17g', proposed), 'reason', reason,
             'at', string.format('%d', now), 'by', me)
  written = true
end
if warmupAge >= 0 and now - warmupAge > storedWarmup then
  storedWarmup = now - warmupAge
  redis.call('HSET', KEYS[1], 'warmupat', string.format('%d', storedWarmup))
  written = true
end
if written then
  redis.call('PEXPIRE', KEYS[1], keep)
end
return { string.format('%.17g', capacity), stored[2] or '', at, stored[4] or '', mine,
         storedWarmup > 0 and string.format('%d', math.max(0, now - storedWarmup)) or '-1' }
