-- Dawson's Kayles (octal game 0.07): a row of n pins; a move knocks down two adjacent pins,
-- leaving nothing, one row or two rows. Positions are rows of pins: "5 9 12".
name = "dawsons-kayles"
position = "integer"

function options(n, emit)
  local rest = n - 2
  if rest < 0 then return end
  for i = 0, rest // 2 do
    local j = rest - i
    if i == 0 then
      if j == 0 then emit() else emit(j) end
    else
      emit(i, j)
    end
  end
end
