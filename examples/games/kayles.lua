-- Kayles (octal game 0.77): a row of n pins; a move knocks down one pin or two adjacent
-- pins, which may split the row in two. Positions are rows of pins: "5 9 12".
name = "kayles"
position = "integer"
-- Rows are heaps: every option of a row is a sum of shorter rows, so grundy values the rows
-- 0, 1, 2, ... in a dense table (docs/scripts.md).
layout = "heaps"

-- The options of one row of n pins, through the emit callback: emit(a, b) is one option,
-- the rows a and b that are left (emit() when nothing is left, emit(a) for one row).
-- split(rest, emit) emits every way to leave `rest` pins in at most two rows at once:
-- emit() when rest is 0, else emit(rest) and emit(i, rest - i) for 1 <= i <= rest / 2.
function options(n, emit)
  for take = 1, 2 do
    if n >= take then
      split(n - take, emit)
    end
  end
end
