-- Kayles: take 1 or 2 adjacent pins from a row of n, leaving 0, 1 or 2 rows.
function options(n)
  local out, k = {}, 0
  for take = 1, 2 do
    if n >= take then
      local rest = n - take
      for i = 0, rest // 2 do
        local j = rest - i
        local opt = {}
        if i > 0 then opt[#opt + 1] = i end
        if j > 0 then opt[#opt + 1] = j end
        k = k + 1
        out[k] = opt
      end
    end
  end
  return out
end
