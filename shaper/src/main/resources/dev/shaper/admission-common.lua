-- The part the fixed-window, sliding-window and gcra scripts share, word for word: not a script by itself. The
-- shaper puts it where a script has the line "-- #include admission-common.lua" when it loads the script
-- (RedisScript.load); a service that runs one of them itself pastes it there.
--
-- It leaves for the rest:
--   reply        the reply to fill, each key's values in turn
--   unusable     answers for a key whose state holds something else: the call fails when it is the only key
--                (unusable returns the error reply to return), else the key's values are { -1, the error, 0, ... }
--   out          a list reply value
--   whole        the whole number a string key holds

local reply = {}

-- Answers for a key whose state cannot be used, with values reply values in all; the error reply to return when it
-- is the call's only key.
local function unusable(err, values)
  if #KEYS == 1 then
    return redis.error_reply(err)
  end
  reply[#reply + 1] = -1
  reply[#reply + 1] = err
  for _ = 3, values do
    reply[#reply + 1] = 0
  end
end

-- A list reply value: the number itself for one limit, else the numbers joined by commas.
local function out(values, format)
  if #values == 1 and format == '%d' then
    return values[1]
  end
  local parts = {}
  for l = 1, #values do
    parts[l] = string.format(format, values[l])
  end
  return table.concat(parts, ',')
end

-- The whole number the string key name holds, nil if there is none, or nil and an error text (starting with
-- WRONGTYPE) if it holds anything else; what names what it should hold, for the error.
local function whole(name, what)
  local value = redis.pcall('GET', name)
  if type(value) == 'table' and value.err then
    return nil, value.err
  end
  if not value then
    return nil
  end
  local number = tonumber(value)
  if number == nil or number ~= math.floor(number) then
    return nil, 'WRONGTYPE ' .. name .. ' holds "' .. value .. '", not ' .. what
  end
  return number
end
