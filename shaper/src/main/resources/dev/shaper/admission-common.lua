-- The part the fixed-window, sliding-window and gcra scripts share, word for word: not a script by itself. The
-- shaper puts it where a script has the line "-- #include admission-common.lua" when it loads the script
-- (RedisScript.load); a service that runs one of them itself pastes it there.
--
-- It leaves for the rest:
--   answer       the reply: each key's values in turn, or for a key whose state holds something else, the call's
--                error when it is the only key, else { -1, the error, 0, ... } for it
--   out          a list reply value
--   whole        the whole number a string key holds

-- The call's reply: decide(i) for every key in turn, which gives the key's values, values of them, or nil and the
-- error text of a state it cannot use; then the call fails with it if the key is the only one.
local function answer(decide, values)
  local reply = {}
  for i = 1, #KEYS do
    local got, err = decide(i)
    if got then
      for v = 1, values do
        reply[#reply + 1] = got[v]
      end
    elseif #KEYS == 1 then
      return redis.error_reply(err)
    else
      reply[#reply + 1] = -1
      reply[#reply + 1] = err
      for _ = 3, values do
        reply[#reply + 1] = 0
      end
    end
  end
  return reply
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
