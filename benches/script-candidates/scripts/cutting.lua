-- Cutting Game (POJ 2311): cut a w×h sheet along a grid line into two sheets,
-- each at least 2 wide in the cut direction (cutting off a 1-wide strip loses at once).
function options(p)
  local w, h = p[1], p[2]
  local out, k = {}, 0
  for a = 2, w // 2 do
    k = k + 1
    out[k] = { { a, h }, { w - a, h } }
  end
  for b = 2, h // 2 do
    k = k + 1
    out[k] = { { w, b }, { w, h - b } }
  end
  return out
end
