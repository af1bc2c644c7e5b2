-- The part the admission scripts that take lists of limits share (token-bucket, fixed-window, sliding-window), word
-- for word: not a script by itself. The shaper puts it where a script has the line "-- #include limit-lists.lua"
-- when it loads the script (RedisScript.load); a service that runs one of them itself pastes it there.
--
-- It leaves for the rest:
--   items        the items of a comma-separated list
--   limitsOnce   a policy's two list arguments, parsed once per call
--   costsOf      the cost argument, one number per limit

-- The items of a comma-separated list.
local function items(text)
  local values = {}
  for item in string.gmatch(text or '', '[^,]+') do
    values[#values + 1] = item
  end
  return values
end

-- A policy's two list arguments (rates and bursts, maxima and windows) as parse(first items, second items, first,
-- second) makes them, or its error reply. Keys of one policy share these arguments (the batched mode charges many
-- keys per call): each pair is parsed once per call; an error is not kept.
local parsed = {}
local function limitsOnce(first, second, parse)
  local id = tostring(first) .. '|' .. tostring(second)
  local limits = parsed[id]
  if limits == nil then
    limits = parse(items(first), items(second), first, second)
    if not limits.err then
      parsed[id] = limits
    end
  end
  return limits
end

-- The cost argument, one number per limit: a number for every limit, or a list of one per limit (then true). Or nil,
-- what is wrong ('count': not one per limit; 'number': an item that is no number) and the text it is wrong in.
local function costsOf(text, n)
  local costs = {}
  local cost = tonumber(text)
  if cost ~= nil then
    for l = 1, n do
      costs[l] = cost
    end
    return costs, false
  end
  local texts = items(text)
  if #texts ~= n then
    return nil, 'count', tostring(text)
  end
  for l = 1, n do
    costs[l] = tonumber(texts[l])
    if costs[l] == nil then
      return nil, 'number', texts[l]
    end
  end
  return costs, true
end
