-- A fixed-window counter shared by every client that runs this script (shaper instances and other services):
-- at most max units per aligned window of the given length, for one or several limits per key.
--
-- KEYS[i]  the admission key's name, with the admission key in a {hash tag}; the shaper uses
--          "shaper:win:{<admission key>}". The name itself holds nothing: each limit counts in strings named
--          <KEYS[i]>:<window ms>:<window index>, one per window, which share its hash tag and so its Redis
--          Cluster slot (the call runs on the node KEYS[i] routes to, and may touch them there: the script has
--          no #!lua shebang, under which Redis would refuse keys it was not given). The window
--          index is floor(Redis time / window length): windows are aligned to the epoch (a 1 d window starts
--          at 00:00 UTC). The sliding-window script keeps the same counters, so a key keeps its counts when its
--          rule switches between the two.
-- ARGV[1]  max: the most units one window admits, a number >= 1
-- ARGV[2]  window: the window's length in milliseconds, a whole number from 1 to 315360000000 (ten years)
-- ARGV[3]  cost: the units requested, a whole number from 0 to 1e15 (take, charge); for cap, the most that may
--          be left, a number >= 0
-- ARGV[4]  "take": count cost in the current window only if the count stays within max (the strict mode)
--          "charge": count cost whatever the count (consumption already admitted elsewhere, reported by the
--          batched mode)
--          "cap": raise the count so that at most cost is left (max - count); never lower it (a shaper that
--          admitted from local counters while Redis was out of reach writes back what it estimates is left)
-- Returns  { allowed: 1 or 0,
--            left: max less the current window's count after the call, a decimal string,
--            wait: whole microseconds until cost fits (the end of the window), 0 if it fits now, at most ten
--                  years (cost above max never fits),
--            count: the current window's count after the call,
--            until: whole microseconds until the current window ends }
--
-- Several limits per key (a rule's admission.limits, e.g. 10 per second and 10000 per hour): max and window
-- are comma-separated lists, one per limit ("10,10000" and "1000,3600000"), each window length at most once;
-- cost is one number for every limit, or for cap one per limit. take counts cost in every limit's window only
-- if each stays within its max: all or none. The reply's allowed is then 1 only if all counted it, and left,
-- wait, count and until are lists in the same order, each limit's own (wait 0 for a limit that allows);
-- the call's wait is the longest.
--
-- Several keys per call: KEYS[i] with ARGV[4i-3] .. ARGV[4i], and the reply holds the five values above for
-- each key in turn. On Redis Cluster all KEYS of one call must share a hash slot. Arguments are checked for
-- every key before anything changes: a bad one fails the call with no effect. A key one of whose counters
-- holds something else than a whole number fails the call when it is the only key; among several, its five
-- values are { -1, the error text, 0, 0, 0 } and the other keys are served; in both cases nothing of that key
-- changes. The error text starts with WRONGTYPE.
--
-- Time is Redis's own clock (TIME, microseconds), so the clients' clocks do not matter. A counter expires two
-- window lengths after it is created (never at once: at least 2 ms), so it outlives its window by at least
-- one more, where the sliding window still reads it. Commands it calls (for a Redis ACL user that may run
-- only what the shaper needs): TIME, GET, INCRBY and PEXPIRE.
--
-- The lines it shares with the other scripts stand in admission-common.lua (with the sliding-window and gcra
-- scripts), limit-lists.lua (with the sliding-window and token-bucket scripts) and window-counters.lua (with the
-- sliding-window script), which the shaper puts in place of the "-- #include" lines below when it loads the
-- script: a service that runs the script itself pastes those files there.

local SCRIPT_NAME = 'fixed-window'

-- The reply (answer, out) and reading a number (whole): the same in the scripts but the token bucket's.
-- #include admission-common.lua
-- items and limitsOnce, the same in the scripts that take lists of limits.
-- #include limit-lists.lua
-- The arguments, checked for every key (args), the counters (read, add) and Redis's time (now): the same in both
-- window scripts.
-- #include window-counters.lua

-- The five reply values of KEYS[i] after the call, or nil and the error text of a counter that holds something else.
local function decide(i)
  local limits, costs, mode = args[i].limits, args[i].costs, args[i].mode
  local n = #limits
  local names, counts, untils = {}, {}, {}
  for l = 1, n do
    local span = limits[l].window * 1000
    local index = math.floor(now / span)
    names[l] = KEYS[i] .. limits[l].name .. string.format('%d', index)
    untils[l] = (index + 1) * span - now
    local count, e = read(names[l])
    if count == nil then
      return nil, e
    end
    counts[l] = count
  end
  local allowed = 1
  local waits = {}
  for l = 1, n do
    local limit = limits[l]
    waits[l] = 0
    if mode == 'take' and counts[l] + costs[l] > limit.max then
      allowed = 0
      if costs[l] > limit.max then
        waits[l] = TEN_YEARS_US
      else
        waits[l] = math.min(untils[l], TEN_YEARS_US)
      end
    end
  end
  local none = {}
  for l = 1, n do
    none[l] = 0
  end
  local left = tally(names, limits, costs, counts, none, mode, allowed)
  return { allowed, out(left, '%.17g'), out(waits, '%d'), out(counts, '%d'), out(untils, '%d') }
end

return answer(decide, 5)
