-- The Cutting Game (POJ 2311): sheets of squared paper W×H; a move cuts one sheet along a
-- grid line into two; whoever first makes a 1×1 sheet wins. Notation: "4x3 2x5".
--
-- Nobody cuts off a strip 1 wide unless forced (the opponent then cuts off a 1×1 and wins),
-- so the options below leave sheets at least 2 wide; a player left with 2×2, 2×3 and 3×2
-- sheets only has such losing cuts, as a player with no option loses. A position read with
-- a sheet 1 wide is won at once: wins() names those cuts.
name = "cutting"
position = "tuple"
-- Its table: sheets WxH by width and height, from 1 (read by parse below).
layout = "boards"

function parse(text)
  local sheets = {}
  for word in text:gmatch("%S+") do
    local w, h = word:match("^(%d+)[xX](%d+)$")
    if not w then return nil, "expected a sheet WxH, found '" .. word .. "'" end
    w, h = tonumber(w), tonumber(h)
    if w < 1 or h < 1 then return nil, "a sheet needs sides of at least 1" end
    if w > 1000 or h > 1000 then return nil, "sides are at most 1000" end
    if w == 1 and h == 1 then return nil, "a 1x1 sheet means the game is already over" end
    sheets[#sheets + 1] = { w, h }
  end
  if #sheets == 0 then return nil, "no sheet given: write sheets as WxH, e.g. 3x2" end
  return sheets
end

function format(p)
  local out = {}
  for i, s in ipairs(p) do out[i] = s[1] .. "x" .. s[2] end
  return table.concat(out, " ")
end

-- A sheet and its turn by a quarter are the same game.
function canonical(s)
  if s[1] <= s[2] then return s end
  return { s[2], s[1] }
end

function options(s, emit)
  local w, h = s[1], s[2]
  for a = 2, w // 2 do
    if w - a >= 2 then emit({ a, h }, { w - a, h }) end
  end
  for b = 2, h // 2 do
    if h - b >= 2 then emit({ w, b }, { w, h - b }) end
  end
end

-- Cuts that leave a 1×1 sheet, named as the built-in family names them.
function wins(p)
  local out = {}
  for k, s in ipairs(p) do
    local w, h = s[1], s[2]
    local from = k .. ":" .. w .. "x" .. h .. "->"
    if w == 1 and h >= 2 then
      out[#out + 1] = from .. "1x1+1x" .. (h - 1)
      out[#out + 1] = from .. "1x" .. (h - 1) .. "+1x1"
    elseif h == 1 and w >= 2 then
      out[#out + 1] = from .. "1x1+" .. (w - 1) .. "x1"
      out[#out + 1] = from .. (w - 1) .. "x1+1x1"
    end
  end
  return out
end
