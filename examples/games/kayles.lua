-- Kayles (octal game 0.77): a row of n pins; a move knocks down one pin or two adjacent
-- pins, which may split the row in two. Positions are rows of pins: "5 9 12".
name = "kayles"
position = "integer"

-- The options of one row of n pins, through the emit callback: emit(a, b) is one option,
-- the rows a and b that are left (emit() when nothing is left, emit(a) for one row).
function options(n, emit)
  for take = 1, 2 do
    local rest = n - take
    if rest >= 0 then
      for i = 0, rest // 2 do
        local j = rest - i
        if i == 0 then
          if j == 0 then emit() else emit(j) end
        else
          emit(i, j)
        end
      end
    end
  end
end
