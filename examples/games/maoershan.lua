-- The 12-point board of NEFU 1356 (built-in: points --board maoershan --rule one-or-two):
-- points 1..12 in rows 1 2 / 3 4 5 6 / 7 8 9 10 / 11 12 on the lines 3-4-5-6, 7-8-9-10,
-- 1-4-8-11 and 2-5-9-12; a move takes one piece, or two pieces on adjacent points.
-- Notation: twelve 0/1 characters, 1 where a piece stands: "111111111111".
--
-- A component is a connected group of pieces, as the sorted list of its points.
name = "maoershan"
position = "set"

local LINES = { { 3, 4, 5, 6 }, { 7, 8, 9, 10 }, { 1, 4, 8, 11 }, { 2, 5, 9, 12 } }
local ADJ = {}
for p = 1, 12 do ADJ[p] = {} end
for _, line in ipairs(LINES) do
  for k = 1, #line - 1 do
    ADJ[line[k]][line[k + 1]] = true
    ADJ[line[k + 1]][line[k]] = true
  end
end

function parse(text)
  local s = text:match("^%s*([01]+)%s*$")
  if not s then return nil, "a position is one word of twelve 0/1 characters" end
  if #s ~= 12 then return nil, #s .. " points given, the board has 12" end
  return s
end

-- The connected groups of a set of points (present[p] true), each a sorted list.
local function groups(present)
  local out, seen = {}, {}
  for p = 1, 12 do
    if present[p] and not seen[p] then
      local group, stack = {}, { p }
      seen[p] = true
      while #stack > 0 do
        local q = table.remove(stack)
        group[#group + 1] = q
        for r in pairs(ADJ[q]) do
          if present[r] and not seen[r] then
            seen[r] = true
            stack[#stack + 1] = r
          end
        end
      end
      table.sort(group)
      out[#out + 1] = group
    end
  end
  return out
end

function components(s)
  local present = {}
  for p = 1, 12 do present[p] = s:sub(p, p) == "1" end
  return groups(present)
end

function format(p)
  if type(p) == "string" then return p end
  local present = {}
  for _, group in ipairs(p) do
    for _, q in ipairs(group) do present[q] = true end
  end
  local out = {}
  for q = 1, 12 do out[q] = present[q] and "1" or "0" end
  return table.concat(out)
end

function options(group, emit)
  local present = {}
  for _, q in ipairs(group) do present[q] = true end
  local function take(a, b)
    present[a] = false
    if b then present[b] = false end
    emit(table.unpack(groups(present)))
    present[a] = true
    if b then present[b] = true end
  end
  for _, a in ipairs(group) do
    take(a)
    for _, b in ipairs(group) do
      if a < b and ADJ[a][b] then take(a, b) end
    end
  end
end
